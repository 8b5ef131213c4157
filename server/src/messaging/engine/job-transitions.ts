import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';

/**
 * The transitions of whole jobs that the jobs API, erasure and the demo seed ask for, beside
 * transitions.ts and in its manner: each a named statement, the only code besides the engine's
 * own that writes message_jobs and message_job_recipients.
 */

/**
 * erase: a person's recipients (`chatId`, of the rows `ofUser` chooses: a condition on `r`) keep
 * their outcome and counts but no longer name them: the chat id becomes `erasedAs`, and their
 * name, the text they were sent, where it went and what they replied are cleared. Returns how many.
 */
export async function erase(db: Db, chatId: string, erasedAs: string, ofUser: SQL): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH changed AS (
          UPDATE message_job_recipients r
          SET chat_id = ${erasedAs}, chat_name = NULL, sent_to = NULL, content = NULL,
              reply_text = NULL, updated_at = now()
          WHERE r.chat_id = ${chatId} AND ${ofUser}
          RETURNING 1)
        SELECT count(*)::int AS n FROM changed`,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * rewrite (an edit of a job that has not started; the caller locked it and inserts its new
 * recipients next): its recipients are removed, and it takes its new text, count, status and
 * schedule.
 */
export async function rewrite(
  db: Db,
  jobId: string,
  job: { content: string | null; total: number; status: string; scheduledAt: Date | null },
): Promise<void> {
  await db.execute(sql`DELETE FROM message_job_recipients WHERE job_id = ${jobId}`);
  await db.execute(
    sql`UPDATE message_jobs SET content = ${job.content}, total = ${job.total}, status = ${job.status},
          scheduled_at = ${job.scheduledAt?.toISOString() ?? null}::timestamptz,
          is_scheduled = ${job.scheduledAt !== null}, status_reason = NULL
        WHERE id = ${jobId}`,
  );
}

/**
 * backdate (the demo's history): a finished job's recipients were sent at `sentAt` (by id, null:
 * never sent) and the job ended at `finishedAt` with these receipt counts, as if it had run then.
 */
export async function backdate(
  db: Db,
  jobId: string,
  sends: { ids: number[]; sentAt: Array<Date | null> },
  finishedAt: Date,
  counts: { delivered: number; read: number; replied: number; undelivered: number },
): Promise<void> {
  await db.execute(
    sql`UPDATE message_job_recipients r SET sent_at = t.sent_at, updated_at = ${finishedAt.toISOString()}::timestamptz,
          failed_at = CASE WHEN r.failed_at IS NOT NULL THEN ${finishedAt.toISOString()}::timestamptz END
        FROM unnest(${sql.param(sends.ids)}::bigint[],
                    ${sql.param(sends.sentAt.map((at) => at?.toISOString() ?? null))}::timestamptz[]) AS t(id, sent_at)
        WHERE r.id = t.id`,
  );
  await db.execute(
    sql`UPDATE message_jobs SET finished_at = ${finishedAt.toISOString()}::timestamptz,
          delivered_count = ${counts.delivered}, read_count = ${counts.read},
          replied_count = ${counts.replied}, undelivered_count = ${counts.undelivered}
        WHERE id = ${jobId}`,
  );
}
