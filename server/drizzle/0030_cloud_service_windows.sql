CREATE TABLE "cloud_service_windows" (
	"session_id" text NOT NULL,
	"phone" text NOT NULL,
	"last_inbound_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cloud_service_windows_session_id_phone_pk" PRIMARY KEY("session_id","phone")
);
--> statement-breakpoint
ALTER TABLE "cloud_service_windows" ADD CONSTRAINT "cloud_service_windows_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;