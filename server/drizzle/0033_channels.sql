CREATE TABLE "wa_channel_orders" (
	"id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text,
	"description" text,
	"invite" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"taken_at" timestamp with time zone,
	"done_at" timestamp with time zone,
	"error" text,
	"channel_id" text
);
--> statement-breakpoint
CREATE TABLE "wa_channels" (
	"session_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"followers" integer DEFAULT 0 NOT NULL,
	"role" text NOT NULL,
	"invite" text,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wa_channels_session_id_channel_id_pk" PRIMARY KEY("session_id","channel_id")
);
--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "channel_order_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "wa_channel_orders" ADD CONSTRAINT "wa_channel_orders_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wa_channels" ADD CONSTRAINT "wa_channels_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "wa_channel_orders_pending_idx" ON "wa_channel_orders" USING btree ("session_id") WHERE "wa_channel_orders"."done_at" IS NULL;