DROP TABLE "awaiting_receipts" CASCADE;--> statement-breakpoint
-- Written by hand (drizzle does not model triggers): a job's recipients go with the job, as in
-- 0003; nothing else is kept per recipient now.
CREATE OR REPLACE FUNCTION message_jobs_delete_recipients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM message_job_recipients WHERE job_id = OLD.id;
  RETURN OLD;
END
$$;
