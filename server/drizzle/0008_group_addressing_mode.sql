ALTER TABLE "wa_groups" ADD COLUMN "addressing_mode" text;--> statement-breakpoint
ALTER TABLE "wa_groups" ADD COLUMN "ephemeral_duration" integer;