-- Written by hand (drizzle does not model triggers). Webhook events are owed in the same
-- transaction as the change they report, whichever code path makes it (dispatcher, sweeper,
-- receipts, session runner): each trigger inserts one webhook_deliveries row per webhook of the
-- owning user that subscribed to the event. The WHEN clauses keep the hot updates (claims,
-- lease renewals) from calling anything. Payloads match WebhookPayloads in
-- server/src/webhooks/service.ts.
CREATE FUNCTION webhook_utc(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;--> statement-breakpoint
CREATE FUNCTION webhook_message_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (webhook_id, event, data)
  SELECT w.id, 'message.status', jsonb_build_object(
           'jobId', NEW.job_id, 'recipientId', NEW.id::text, 'chatId', NEW.chat_id, 'status', e.status,
           'error', CASE WHEN e.status = 'failed' THEN NEW.error END, 'at', webhook_utc(e.at))
  FROM (VALUES
          (1, 'sent', NEW.sent_at, NEW.status = 'sent' AND OLD.status IS DISTINCT FROM 'sent'),
          (2, 'failed', NEW.updated_at, NEW.status = 'failed' AND OLD.status IS DISTINCT FROM 'failed'),
          (3, 'delivered', NEW.delivered_at, NEW.delivered_at IS NOT NULL AND OLD.delivered_at IS NULL),
          (4, 'read', NEW.read_at, NEW.read_at IS NOT NULL AND OLD.read_at IS NULL)
       ) AS e(n, status, at, happened)
  JOIN message_jobs j ON j.id = NEW.job_id
  JOIN webhooks w ON w.user_id = j.user_id AND 'message.status' = ANY (w.events)
  WHERE e.happened
  ORDER BY e.n;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER message_job_recipients_webhooks AFTER UPDATE ON message_job_recipients
  FOR EACH ROW
  WHEN ((NEW.status IN ('sent', 'failed') AND OLD.status IS DISTINCT FROM NEW.status)
        OR (NEW.delivered_at IS NOT NULL AND OLD.delivered_at IS NULL)
        OR (NEW.read_at IS NOT NULL AND OLD.read_at IS NULL))
  EXECUTE FUNCTION webhook_message_status();--> statement-breakpoint
CREATE FUNCTION webhook_job_finished() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (webhook_id, event, data)
  SELECT w.id, 'job.finished', jsonb_build_object(
           'jobId', NEW.id, 'sessionId', NEW.session_id, 'status', NEW.status, 'total', NEW.total,
           'sent', NEW.sent_count, 'failed', NEW.failed_count, 'cancelled', NEW.cancelled_count,
           'finishedAt', webhook_utc(NEW.finished_at))
  FROM webhooks w
  WHERE w.user_id = NEW.user_id AND 'job.finished' = ANY (w.events);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER message_jobs_webhooks AFTER UPDATE ON message_jobs
  FOR EACH ROW
  WHEN (NEW.finished_at IS NOT NULL AND OLD.finished_at IS NULL AND NEW.status IN ('completed', 'failed'))
  EXECUTE FUNCTION webhook_job_finished();--> statement-breakpoint
CREATE FUNCTION webhook_session_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (webhook_id, event, data)
  SELECT w.id, 'session.status', jsonb_build_object(
           'sessionId', NEW.session_id, 'status', NEW.status, 'reason', NEW.status_reason,
           'at', webhook_utc(now()))
  FROM webhooks w
  WHERE w.user_id = NEW.user_id AND 'session.status' = ANY (w.events);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER wa_sessions_webhooks AFTER UPDATE OF status ON wa_sessions
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION webhook_session_status();
