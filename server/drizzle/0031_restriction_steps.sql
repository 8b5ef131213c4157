ALTER TABLE "wa_sessions" ADD COLUMN "restriction_steps" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "restriction_step_at" timestamp with time zone;