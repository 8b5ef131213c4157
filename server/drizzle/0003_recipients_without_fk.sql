ALTER TABLE "message_job_recipients" DROP CONSTRAINT "message_job_recipients_job_id_message_jobs_id_fk";
--> statement-breakpoint
-- Written by hand (drizzle does not model triggers): a job's recipients go with the job, also when
-- a user's deletion cascades to its jobs. One statement per deleted job, not a check per inserted recipient.
CREATE FUNCTION message_jobs_delete_recipients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM message_job_recipients WHERE job_id = OLD.id;
  RETURN OLD;
END
$$;--> statement-breakpoint
CREATE TRIGGER message_jobs_delete_recipients AFTER DELETE ON message_jobs
  FOR EACH ROW EXECUTE FUNCTION message_jobs_delete_recipients();
