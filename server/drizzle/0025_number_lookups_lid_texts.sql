CREATE TABLE "wa_lid_texts" (
	"session_id" text NOT NULL,
	"message_id" text NOT NULL,
	"lid" text NOT NULL,
	"text" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wa_lid_texts_session_id_message_id_pk" PRIMARY KEY("session_id","message_id")
);
--> statement-breakpoint
CREATE TABLE "wa_number_lookups" (
	"phone" text PRIMARY KEY NOT NULL,
	"jid" text,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "wa_lid_texts" ADD CONSTRAINT "wa_lid_texts_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "wa_lid_texts_lid_idx" ON "wa_lid_texts" USING btree ("lid");