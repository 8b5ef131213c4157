ALTER TABLE "message_job_recipients" ADD COLUMN "sent_to" text;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "send_paused_until" timestamp with time zone;