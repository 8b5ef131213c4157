-- Written by hand (drizzle does not model triggers). message.status events come from one trigger
-- call per statement instead of one per row: a dispatch tick records tens of sends in one
-- statement, and the row trigger ran a query for each (a quarter of the dispatch rate, with no
-- webhook configured at all). The transition tables hold every row the statement updated (a
-- statement that records sends and claims the next ones updates recipients twice; PostgreSQL
-- merges both into one pair of tables), so the function first returns at once when no webhook
-- wants message.status. The payload and the events are those of 0006.
DROP TRIGGER message_job_recipients_webhooks ON message_job_recipients;--> statement-breakpoint
DROP FUNCTION webhook_message_status();--> statement-breakpoint
CREATE FUNCTION webhook_message_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhooks WHERE 'message.status' = ANY (events)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (webhook_id, event, data)
  SELECT w.id, 'message.status', jsonb_build_object(
           'jobId', n.job_id, 'recipientId', n.id::text, 'chatId', n.chat_id, 'status', e.status,
           'error', CASE WHEN e.status = 'failed' THEN n.error END, 'at', webhook_utc(e.at))
  FROM new_rows n
  JOIN old_rows o ON o.id = n.id
  CROSS JOIN LATERAL (VALUES
          (1, 'sent', n.sent_at, n.status = 'sent' AND o.status IS DISTINCT FROM 'sent'),
          (2, 'failed', n.updated_at, n.status = 'failed' AND o.status IS DISTINCT FROM 'failed'),
          (3, 'delivered', n.delivered_at, n.delivered_at IS NOT NULL AND o.delivered_at IS NULL),
          (4, 'read', n.read_at, n.read_at IS NOT NULL AND o.read_at IS NULL)
       ) AS e(k, status, at, happened)
  JOIN message_jobs j ON j.id = n.job_id
  JOIN webhooks w ON w.user_id = j.user_id AND 'message.status' = ANY (w.events)
  WHERE e.happened
  ORDER BY n.id, e.k, w.id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER message_job_recipients_webhooks AFTER UPDATE ON message_job_recipients
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_message_statuses();
