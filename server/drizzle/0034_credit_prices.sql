CREATE TABLE "credit_prices" (
	"kind" text PRIMARY KEY NOT NULL,
	"credits" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "message_job_recipients" ADD COLUMN "price" integer DEFAULT 1 NOT NULL;