CREATE TABLE "auto_replies_sent" (
	"session_id" text NOT NULL,
	"rule_key" text NOT NULL,
	"person_key" text NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"job_id" text,
	CONSTRAINT "auto_replies_sent_session_id_rule_key_person_key_pk" PRIMARY KEY("session_id","rule_key","person_key")
);
--> statement-breakpoint
CREATE TABLE "auto_reply_rules" (
	"session_id" text PRIMARY KEY NOT NULL,
	"rules" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "follow_ups" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"job_id" text NOT NULL,
	"session_id" text NOT NULL,
	"segment" text NOT NULL,
	"message" jsonb NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"state" text DEFAULT 'waiting' NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "auto_replies_sent" ADD CONSTRAINT "auto_replies_sent_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auto_reply_rules" ADD CONSTRAINT "auto_reply_rules_session_id_wa_sessions_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."wa_sessions"("session_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow_ups" ADD CONSTRAINT "follow_ups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "follow_ups_due_idx" ON "follow_ups" USING btree ("due_at") WHERE "follow_ups"."state" = 'waiting';--> statement-breakpoint
CREATE INDEX "follow_ups_job_idx" ON "follow_ups" USING btree ("job_id");