ALTER TABLE "api_keys" ADD COLUMN "revoked_reason" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
-- Keys revoked before reasons were kept were revoked by hand.
UPDATE "api_keys" SET "revoked_reason" = 'revoked' WHERE "revoked_at" IS NOT NULL;
