CREATE TABLE "wa_privacy_tokens" (
	"session_id" text NOT NULL,
	"chat_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "wa_privacy_tokens_session_id_chat_id_pk" PRIMARY KEY("session_id","chat_id")
);
--> statement-breakpoint
ALTER TABLE "wa_privacy_tokens" ADD CONSTRAINT "wa_privacy_tokens_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;