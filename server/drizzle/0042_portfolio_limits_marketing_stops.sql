CREATE TABLE "cloud_marketing_preferences" (
	"waba_id" text NOT NULL,
	"address" text NOT NULL,
	"stopped" boolean NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"source" text NOT NULL,
	CONSTRAINT "cloud_marketing_preferences_waba_id_address_pk" PRIMARY KEY("waba_id","address")
);
--> statement-breakpoint
CREATE TABLE "cloud_portfolio_recipients" (
	"portfolio" text NOT NULL,
	"recipient" text NOT NULL,
	"last_sent_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cloud_portfolio_recipients_portfolio_recipient_pk" PRIMARY KEY("portfolio","recipient")
);
--> statement-breakpoint
CREATE TABLE "cloud_portfolios" (
	"portfolio" text PRIMARY KEY NOT NULL,
	"messaging_limit" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cloud_portfolio_recipients" ADD CONSTRAINT "cloud_portfolio_recipients_portfolio_cloud_portfolios_portfolio_fk" FOREIGN KEY ("portfolio") REFERENCES "public"."cloud_portfolios"("portfolio") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cloud_portfolio_recipients_window_idx" ON "cloud_portfolio_recipients" USING btree ("portfolio","last_sent_at");--> statement-breakpoint
-- The count starts from what was sent before it existed: each business's template recipients of the last 24 hours.
INSERT INTO "cloud_portfolios" ("portfolio")
SELECT DISTINCT "waba_id" FROM "cloud_accounts" ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "cloud_portfolio_recipients" ("portfolio", "recipient", "last_sent_at")
SELECT a."waba_id", split_part(r."chat_id", '@', 1), max(r."sent_at")
FROM "message_job_recipients" r
JOIN "message_jobs" j ON j."id" = r."job_id"
JOIN "cloud_accounts" a ON a."session_id" = r."session_id"
WHERE j."message_type" = 'template' AND r."sent_at" > now() - interval '24 hours'
GROUP BY 1, 2
ON CONFLICT DO NOTHING;
