ALTER TABLE "message_jobs" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "message_jobs" ADD COLUMN "recent_failures" integer DEFAULT 0 NOT NULL;