ALTER TABLE "wa_sessions" ADD COLUMN "qr_served_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "command" text;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "command_at" timestamp with time zone;