-- Issue 28: the undelivered sweep reads each account's sends in sent_at order from a mark, through
-- the recipients' own (session_id, sent_at) index, instead of a row per send in awaiting_receipts
-- (0035), which every recorded send inserted and every first receipt deleted.
CREATE TABLE "undelivered_sweeps" (
	"session_id" text PRIMARY KEY NOT NULL,
	"swept_to" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- Written by hand: an account's mark starts just before its oldest send still awaiting a receipt
-- (what the sweep would have read first), and at now for an account with none.
INSERT INTO "undelivered_sweeps" ("session_id", "swept_to")
SELECT r."session_id", min(r."sent_at") - interval '1 microsecond'
FROM "awaiting_receipts" a JOIN "message_job_recipients" r ON r."id" = a."recipient_id"
WHERE r."sent_at" IS NOT NULL
GROUP BY r."session_id";--> statement-breakpoint
INSERT INTO "undelivered_sweeps" ("session_id", "swept_to")
SELECT "session_id", now() FROM "wa_sessions"
ON CONFLICT DO NOTHING;
