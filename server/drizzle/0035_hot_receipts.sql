-- Issue 28: a receipt's update of its recipient changes no indexed column again, so it is a HOT
-- update (in place, no index touched). Two indexes of 0027/0028 had made every one non-HOT: the
-- sweep's partial index named delivered_at in its predicate, and the failures' index was keyed on
-- updated_at. "Awaiting a receipt" moves to a table of its own; failures are keyed on failed_at.
CREATE TABLE "awaiting_receipts" (
	"recipient_id" bigint PRIMARY KEY NOT NULL,
	"sent_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- Written by hand: the recipients awaiting a receipt now, and when each failed.
INSERT INTO "awaiting_receipts" ("recipient_id", "sent_at")
SELECT "id", "sent_at" FROM "message_job_recipients"
WHERE "status" = 'sent' AND "delivered_at" IS NULL AND "undelivered_at" IS NULL AND "sent_at" IS NOT NULL;--> statement-breakpoint
DROP INDEX "recipients_awaiting_receipt_idx";--> statement-breakpoint
DROP INDEX "recipients_session_failed_idx";--> statement-breakpoint
ALTER TABLE "message_job_recipients" ADD COLUMN "failed_at" timestamp with time zone;--> statement-breakpoint
UPDATE "message_job_recipients" SET "failed_at" = "updated_at" WHERE "status" = 'failed';--> statement-breakpoint
CREATE INDEX "awaiting_receipts_sent_idx" ON "awaiting_receipts" USING btree ("sent_at");--> statement-breakpoint
CREATE INDEX "recipients_session_failed_idx" ON "message_job_recipients" USING btree ("session_id","failed_at") WHERE "message_job_recipients"."status" = 'failed';--> statement-breakpoint
-- Written by hand (drizzle does not model triggers; 0003): a job's recipients go with the job, and
-- so do their rows awaiting a receipt (no foreign key: its cascade would run once per recipient).
CREATE OR REPLACE FUNCTION message_jobs_delete_recipients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH gone AS (DELETE FROM message_job_recipients WHERE job_id = OLD.id RETURNING id)
  DELETE FROM awaiting_receipts WHERE recipient_id IN (SELECT id FROM gone);
  RETURN OLD;
END
$$;
