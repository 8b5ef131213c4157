CREATE TABLE "account_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "account_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"session_id" text NOT NULL,
	"kind" text NOT NULL,
	"detail" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "account_health" (
	"session_id" text PRIMARY KEY NOT NULL,
	"score" integer NOT NULL,
	"state" text NOT NULL,
	"reason" text,
	"signals" jsonb NOT NULL,
	"window_from" timestamp with time zone NOT NULL,
	"protect_paused_at" timestamp with time zone,
	"warm_up_held_days" integer DEFAULT 0 NOT NULL,
	"warm_up_day_checked" text,
	"evaluated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "session_policies" ADD COLUMN "new_contacts_per_day" integer;--> statement-breakpoint
ALTER TABLE "account_events" ADD CONSTRAINT "account_events_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_health" ADD CONSTRAINT "account_health_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_events_session_idx" ON "account_events" USING btree ("session_id","at");--> statement-breakpoint
CREATE INDEX "recipients_session_chat_sent_idx" ON "message_job_recipients" USING btree ("session_id","chat_id") WHERE "message_job_recipients"."status" = 'sent';--> statement-breakpoint
CREATE INDEX "recipients_session_failed_idx" ON "message_job_recipients" USING btree ("session_id","updated_at") WHERE "message_job_recipients"."status" = 'failed';--> statement-breakpoint
CREATE INDEX "recipients_session_undelivered_idx" ON "message_job_recipients" USING btree ("session_id","undelivered_at") WHERE "message_job_recipients"."undelivered_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "recipients_session_replied_idx" ON "message_job_recipients" USING btree ("session_id","replied_at") WHERE "message_job_recipients"."replied_at" IS NOT NULL;