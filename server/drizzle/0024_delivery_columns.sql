ALTER TABLE "message_job_recipients" ADD COLUMN "replied_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message_job_recipients" ADD COLUMN "reply_text" text;--> statement-breakpoint
ALTER TABLE "message_job_recipients" ADD COLUMN "undelivered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message_job_recipients" ADD COLUMN "undelivered_reason" text;--> statement-breakpoint
ALTER TABLE "message_jobs" ADD COLUMN "replied_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "message_jobs" ADD COLUMN "undelivered_count" integer DEFAULT 0 NOT NULL;