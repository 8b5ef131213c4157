CREATE TABLE "cloud_accounts" (
	"session_id" text PRIMARY KEY NOT NULL,
	"phone_number_id" text NOT NULL,
	"waba_id" text NOT NULL,
	"access_token" text NOT NULL,
	"app_secret" text NOT NULL,
	"verify_token" text NOT NULL,
	"display_phone_number" text,
	"verified_name" text,
	"quality_rating" text,
	"messaging_limit_tier" text,
	"throughput_level" text,
	"checked_at" timestamp with time zone,
	"templates_synced_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cloud_prices" (
	"category" text PRIMARY KEY NOT NULL,
	"price_units" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cloud_templates" (
	"session_id" text NOT NULL,
	"name" text NOT NULL,
	"language" text NOT NULL,
	"category" text NOT NULL,
	"status" text NOT NULL,
	"body_text" text NOT NULL,
	"parameters" text[] NOT NULL,
	"named" boolean DEFAULT false NOT NULL,
	"header_format" text,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cloud_templates_session_id_name_language_pk" PRIMARY KEY("session_id","name","language")
);
--> statement-breakpoint
ALTER TABLE "message_job_recipients" ADD COLUMN "pricing_category" text;--> statement-breakpoint
ALTER TABLE "message_job_recipients" ADD COLUMN "cost_units" integer;--> statement-breakpoint
ALTER TABLE "message_job_recipients" ADD COLUMN "cloud_retries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "kind" text DEFAULT 'linked' NOT NULL;--> statement-breakpoint
ALTER TABLE "cloud_accounts" ADD CONSTRAINT "cloud_accounts_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cloud_templates" ADD CONSTRAINT "cloud_templates_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cloud_accounts_phone_number_id_idx" ON "cloud_accounts" USING btree ("phone_number_id");--> statement-breakpoint
-- hand-written: Meta's India rates per delivered message (per-message pricing since 1 July 2025,
-- rates from 1 January 2026) in ten-thousandths of a rupee: marketing ₹0.8631, utility and
-- authentication ₹0.1150, service (replies inside the 24-hour window) free. An admin edits them.
INSERT INTO "cloud_prices" ("category", "price_units") VALUES
  ('marketing', 8631), ('utility', 1150), ('authentication', 1150), ('service', 0)
ON CONFLICT DO NOTHING;
