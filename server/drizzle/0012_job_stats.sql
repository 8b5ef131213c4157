CREATE TABLE "job_stats" (
	"user_id" text NOT NULL,
	"day" date NOT NULL,
	"status" text NOT NULL,
	"jobs" integer NOT NULL,
	"recipients" bigint NOT NULL,
	"sent" bigint NOT NULL,
	"failed" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "job_stats_user_day_idx" ON "job_stats" USING btree ("user_id","day");--> statement-breakpoint
CREATE INDEX "message_jobs_user_status_created_idx" ON "message_jobs" USING btree ("user_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "message_jobs_user_live_idx" ON "message_jobs" USING btree ("user_id","created_at") WHERE "message_jobs"."status" NOT IN ('completed', 'failed');--> statement-breakpoint--> statement-breakpoint
-- Written by hand (drizzle does not model triggers): job_stats rows for finished jobs, appended
-- in the same transaction as the change, whichever code path makes it (dispatcher, sweeper,
-- delete, retry). The WHEN clause keeps updates of moving jobs from calling anything.
CREATE FUNCTION job_stats_append() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.status IN ('completed', 'failed') THEN
    INSERT INTO job_stats (user_id, day, status, jobs, recipients, sent, failed)
    VALUES (OLD.user_id, (OLD.created_at AT TIME ZONE 'UTC')::date, OLD.status, -1, -OLD.total,
            -OLD.sent_count, -OLD.failed_count);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.status IN ('completed', 'failed') THEN
    INSERT INTO job_stats (user_id, day, status, jobs, recipients, sent, failed)
    VALUES (NEW.user_id, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.status, 1, NEW.total,
            NEW.sent_count, NEW.failed_count);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER message_jobs_stats_insert_delete AFTER INSERT OR DELETE ON message_jobs
  FOR EACH ROW EXECUTE FUNCTION job_stats_append();--> statement-breakpoint
CREATE TRIGGER message_jobs_stats_update AFTER UPDATE OF status, total, sent_count, failed_count, user_id, created_at
  ON message_jobs FOR EACH ROW
  WHEN (OLD.status IN ('completed', 'failed') OR NEW.status IN ('completed', 'failed'))
  EXECUTE FUNCTION job_stats_append();--> statement-breakpoint
INSERT INTO job_stats (user_id, day, status, jobs, recipients, sent, failed)
SELECT user_id, (created_at AT TIME ZONE 'UTC')::date, status, count(*), sum(total), sum(sent_count), sum(failed_count)
FROM message_jobs WHERE status IN ('completed', 'failed')
GROUP BY 1, 2, 3;
