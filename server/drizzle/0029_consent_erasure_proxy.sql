CREATE TABLE "consent_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"source" text NOT NULL,
	"purpose" text,
	"file_name" text,
	"list_id" text,
	"group_id" text,
	"group_name" text,
	"session_id" text,
	"actor_id" text NOT NULL,
	"actor" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"numbers" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "erasures" (
	"user_id" text NOT NULL,
	"token" text NOT NULL,
	"actor_id" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "erasures_user_id_token_pk" PRIMARY KEY("user_id","token")
);
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "consent_grant_id" text;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD COLUMN "keyword" text;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD COLUMN "message" text;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD COLUMN "message_id" text;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD COLUMN "session_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "consent_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "opt_out_confirm" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "consent_grants" ADD CONSTRAINT "consent_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "erasures" ADD CONSTRAINT "erasures_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consent_grants_user_idx" ON "consent_grants" USING btree ("user_id","at");--> statement-breakpoint
CREATE INDEX "contacts_consent_phone_idx" ON "contacts" USING btree ("phone_number") WHERE consent_grant_id IS NOT NULL;--> statement-breakpoint
ALTER TABLE "wa_sessions" ADD COLUMN "proxy" text;