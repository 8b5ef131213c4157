CREATE TABLE "inbox_messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "inbox_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" text NOT NULL,
	"person_id" text NOT NULL,
	"session_id" text NOT NULL,
	"direction" text NOT NULL,
	"chat_id" text NOT NULL,
	"message_id" text,
	"type" text NOT NULL,
	"text" text NOT NULL,
	"media" jsonb,
	"job_id" text,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbox_threads" (
	"person_id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"session_id" text NOT NULL,
	"name" text,
	"last_text" text NOT NULL,
	"last_type" text NOT NULL,
	"last_direction" text NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"last_in_at" timestamp with time zone NOT NULL,
	"unread" integer DEFAULT 0 NOT NULL,
	"state" text DEFAULT 'open' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "inbox_messages" ADD CONSTRAINT "inbox_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbox_messages" ADD CONSTRAINT "inbox_messages_person_id_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."people"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbox_threads" ADD CONSTRAINT "inbox_threads_person_id_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."people"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbox_threads" ADD CONSTRAINT "inbox_threads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "inbox_messages_incoming_idx" ON "inbox_messages" USING btree ("session_id","message_id") WHERE "inbox_messages"."message_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "inbox_messages_person_idx" ON "inbox_messages" USING btree ("person_id","at");--> statement-breakpoint
CREATE INDEX "inbox_messages_job_idx" ON "inbox_messages" USING btree ("user_id","job_id") WHERE "inbox_messages"."job_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "inbox_threads_user_last_idx" ON "inbox_threads" USING btree ("user_id","last_at" DESC NULLS LAST,"person_id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "inbox_threads_unread_idx" ON "inbox_threads" USING btree ("user_id") WHERE "inbox_threads"."unread" > 0;