DROP INDEX "recipients_message_idx";--> statement-breakpoint
ALTER TABLE "message_jobs" ADD COLUMN "delivered_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "message_jobs" ADD COLUMN "read_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "message_jobs" ADD COLUMN "waiting_since" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "recipients_message_idx" ON "message_job_recipients" USING btree ("session_id","message_id") WHERE "message_job_recipients"."message_id" IS NOT NULL;