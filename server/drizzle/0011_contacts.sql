CREATE TABLE "contact_lists" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"fields" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"list_id" text NOT NULL,
	"position" integer NOT NULL,
	"phone_number" text NOT NULL,
	"fields" jsonb NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	CONSTRAINT "contacts_list_id_phone_number_pk" PRIMARY KEY("list_id","phone_number")
);
--> statement-breakpoint
CREATE TABLE "opt_outs" (
	"user_id" text NOT NULL,
	"phone_number" text NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "opt_outs_user_id_phone_number_pk" PRIMARY KEY("user_id","phone_number")
);
--> statement-breakpoint
ALTER TABLE "contact_lists" ADD CONSTRAINT "contact_lists_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_list_id_contact_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."contact_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD CONSTRAINT "opt_outs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_lists_user_idx" ON "contact_lists" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "contacts_list_position_idx" ON "contacts" USING btree ("list_id","position");