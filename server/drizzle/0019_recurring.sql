CREATE TABLE "message_job_series" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"session_id" text NOT NULL,
	"audience" text NOT NULL,
	"every" text NOT NULL,
	"until" timestamp with time zone,
	"anchor_at" timestamp with time zone NOT NULL,
	"chat_ids" text[] NOT NULL,
	"chat_names" text[] NOT NULL,
	"contents" text[],
	"started" integer DEFAULT 0 NOT NULL,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "message_jobs" ADD COLUMN "series_id" text;--> statement-breakpoint
ALTER TABLE "message_jobs" ADD COLUMN "awaiting_start" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "message_job_series" ADD CONSTRAINT "message_job_series_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_jobs_awaiting_start_idx" ON "message_jobs" USING btree ("scheduled_at") WHERE "message_jobs"."awaiting_start";--> statement-breakpoint
CREATE INDEX "message_jobs_series_idx" ON "message_jobs" USING btree ("series_id") WHERE "message_jobs"."series_id" IS NOT NULL;