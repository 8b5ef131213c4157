ALTER TABLE "wa_sessions" ADD COLUMN "pairing_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "pairing_code" text;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "pairing_code_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "pairing_code_expires_at" timestamp with time zone;