CREATE TABLE "session_policies" (
	"session_id" text PRIMARY KEY NOT NULL,
	"daily_limit" integer,
	"warm_up" boolean,
	"quiet_start" text,
	"quiet_end" text,
	"timezone" text DEFAULT 'Asia/Kolkata' NOT NULL,
	"delay_min_ms" integer,
	"delay_max_ms" integer,
	"typing" boolean DEFAULT true NOT NULL,
	"held_reason" text,
	"held_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "linked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "session_policies" ADD CONSTRAINT "session_policies_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "recipients_session_sent_idx" ON "message_job_recipients" USING btree ("session_id","sent_at") WHERE "message_job_recipients"."status" = 'sent';--> statement-breakpoint
-- Written by hand: accounts linked before this migration count their warm-up from their last connection.
UPDATE "wa_sessions" SET "linked_at" = coalesce("connected_at", "created_at") WHERE "has_credentials";