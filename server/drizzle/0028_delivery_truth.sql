DROP INDEX "recipients_session_chat_sent_idx";--> statement-breakpoint
CREATE INDEX "recipients_awaiting_receipt_idx" ON "message_job_recipients" USING btree ("sent_at") WHERE "message_job_recipients"."status" = 'sent' AND "message_job_recipients"."delivered_at" IS NULL AND "message_job_recipients"."undelivered_at" IS NULL;--> statement-breakpoint
CREATE INDEX "recipients_session_chat_sent_idx" ON "message_job_recipients" USING btree ("session_id","chat_id","sent_at") WHERE "message_job_recipients"."status" = 'sent';--> statement-breakpoint
-- hand-written: message.status webhooks also report 'replied' (with the reply's text in `reply`)
-- and 'undelivered' (with the known cause in `error`), issue 26. The trigger and its early return
-- are those of 0021; the payload keeps its fields and adds `reply` (null but for replied).
CREATE OR REPLACE FUNCTION webhook_message_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhooks WHERE 'message.status' = ANY (events)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (webhook_id, event, data)
  SELECT w.id, 'message.status', jsonb_build_object(
           'jobId', n.job_id, 'recipientId', n.id::text, 'chatId', n.chat_id, 'status', e.status,
           'error', CASE WHEN e.status = 'failed' THEN n.error
                         WHEN e.status = 'undelivered' THEN n.undelivered_reason END,
           'reply', CASE WHEN e.status = 'replied' THEN n.reply_text END,
           'at', webhook_utc(e.at))
  FROM new_rows n
  JOIN old_rows o ON o.id = n.id
  CROSS JOIN LATERAL (VALUES
          (1, 'sent', n.sent_at, n.status = 'sent' AND o.status IS DISTINCT FROM 'sent'),
          (2, 'failed', n.updated_at, n.status = 'failed' AND o.status IS DISTINCT FROM 'failed'),
          (3, 'delivered', n.delivered_at, n.delivered_at IS NOT NULL AND o.delivered_at IS NULL),
          (4, 'read', n.read_at, n.read_at IS NOT NULL AND o.read_at IS NULL),
          (5, 'replied', n.replied_at, n.replied_at IS NOT NULL AND o.replied_at IS NULL),
          (6, 'undelivered', n.undelivered_at, n.undelivered_at IS NOT NULL AND o.undelivered_at IS NULL)
       ) AS e(k, status, at, happened)
  JOIN message_jobs j ON j.id = n.job_id
  JOIN webhooks w ON w.user_id = j.user_id AND 'message.status' = ANY (w.events)
  WHERE e.happened
  ORDER BY n.id, e.k, w.id;
  RETURN NULL;
END
$$;
