import type { StoredPoll } from '@wa/contract';
import { type SQL, sql } from 'drizzle-orm';
import { refundCtes } from '../../credits/credits.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { JOB_MESSAGES } from '../messages.ts';
import { holdQueued, jobCounters, PAUSED_DUE, reopenJob } from './rules.ts';

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
  job: {
    content: string | null;
    total: number;
    status: string;
    scheduledAt: Date | null;
    /** A poll job's new poll (its column beside the content's JSON). */
    poll?: StoredPoll;
    /** A media job's new file, stored already. */
    media?: { id: string; mime: string; fileName: string | null };
  },
): Promise<void> {
  await db.execute(sql`DELETE FROM message_job_recipients WHERE job_id = ${jobId}`);
  const poll = job.poll ? sql`, poll = ${JSON.stringify(job.poll)}::jsonb` : sql``;
  const media = job.media
    ? sql`, media_id = ${job.media.id}, media_mime = ${job.media.mime}, file_name = ${job.media.fileName}`
    : sql``;
  await db.execute(
    sql`UPDATE message_jobs SET content = ${job.content}, total = ${job.total}, status = ${job.status},
          scheduled_at = ${job.scheduledAt?.toISOString() ?? null}::timestamptz,
          is_scheduled = ${job.scheduledAt !== null}, status_reason = NULL${poll}${media}
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

/**
 * cancel: the job's queued recipients are cancelled, counted on the job and refunded with the
 * job's ledger row, in one statement; returns how many. The job is locked by the caller.
 */
export async function cancel(db: Db, jobId: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients SET status = 'cancelled', updated_at = now()
          WHERE job_id = ${jobId} AND status = 'queued'
          RETURNING price
        ), c AS (
          SELECT count(*)::int AS n, coalesce(sum(price), 0)::bigint AS credits FROM r
        ), counted AS (
          UPDATE message_jobs j SET ${jobCounters({ cancelled: sql`(SELECT n FROM c)` })}
          WHERE j.id = ${jobId} AND (SELECT n FROM c) > 0
          RETURNING j.id AS job_id, j.user_id, (SELECT credits FROM c) AS credits
        ), ${refundCtes('counted', JOB_MESSAGES.cancelled)}
        SELECT n FROM c`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * requeue: a locked job's failed recipients are queued again on `accountId` (their credits were
 * reserved by the caller), and the job reopens: its failed count drops, a finished job is pending
 * again, a spread job adds the account. `price`: the credits each was charged again. A paused job's requeued recipients wait for its resume.
 * `only` narrows which failed recipients (the retry's: those a retry may fix). Returns how many.
 */
export async function requeue(
  db: Db,
  jobId: string,
  accountId: string,
  price: number,
  only: SQL = sql`true`,
): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients
          SET status = 'queued', error = NULL, failed_at = NULL, session_id = ${accountId}, price = ${price},
              message_id = NULL,
              due_at = CASE WHEN (SELECT status FROM message_jobs WHERE id = ${jobId}) = 'paused'
                            THEN ${PAUSED_DUE} ELSE now() END,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE job_id = ${jobId} AND status = 'failed' AND ${only}
          RETURNING 1
        ), c AS (
          SELECT count(*)::int AS n FROM r
        ), reopened AS (
          UPDATE message_jobs SET failed_count = failed_count - (SELECT n FROM c), session_id = ${accountId},
            session_ids = CASE WHEN session_ids IS NULL OR ${accountId} = ANY(session_ids) THEN session_ids
                               ELSE session_ids || ARRAY[${accountId}]::text[] END,
            ${reopenJob('pending')}, waiting_since = NULL
          WHERE id = ${jobId} AND (SELECT n FROM c) > 0
          RETURNING 1
        ) SELECT n FROM c`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * pause: a locked job stops; its queued recipients leave the queue (rules.ts, PAUSED_DUE); one
 * being sent stays `sending` and finishes.
 */
export async function pause(db: Db, jobId: string): Promise<void> {
  await queryRows(
    db,
    sql`WITH j AS (
          UPDATE message_jobs SET status = 'paused', status_reason = NULL, waiting_since = NULL
          WHERE id = ${jobId} RETURNING id
        ) ${holdQueued(sql`SELECT id FROM j`)}`,
  );
}

/**
 * resume: a locked paused job's status is what it would be had it not paused, its held recipients
 * fall due now (or at the schedule time), and its failure window starts again. Returns the
 * accounts that have recipients to send.
 */
export async function resume(db: Db, jobId: string): Promise<string[]> {
  const rows = await queryRows<{ session_id: string }>(
    db,
    sql`WITH j AS (
          UPDATE message_jobs
          SET status = CASE WHEN started_at IS NOT NULL THEN 'processing'
                            WHEN scheduled_at > now() THEN 'scheduled' ELSE 'pending' END,
              status_reason = NULL, recent_failures = 0
          WHERE id = ${jobId}
          RETURNING scheduled_at
        ), r AS (
          UPDATE message_job_recipients r
          SET due_at = greatest(now(), coalesce((SELECT scheduled_at FROM j), now())), updated_at = now()
          WHERE r.job_id = ${jobId} AND r.status = 'queued' AND r.due_at >= ${PAUSED_DUE}
          RETURNING r.session_id
        ) SELECT DISTINCT session_id FROM r`,
  );
  return rows.map((r) => r.session_id);
}

/**
 * reschedule: a locked scheduled job that has not started (every recipient still queued) and its
 * recipients move to `at`. False, and nothing changes, when the job is no longer scheduled or one
 * of its recipients has left the queue (it started).
 * Its waiting follow-ups move by as much, keeping their distance from the job's send (`before`
 * reads the time the statement replaces: every part of one statement sees the same snapshot).
 */
export async function reschedule(db: Db, jobId: string, at: Date): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`WITH before AS (
          SELECT scheduled_at FROM message_jobs WHERE id = ${jobId}
        ), moved AS (
          UPDATE message_jobs SET scheduled_at = ${at.toISOString()}::timestamptz
          WHERE id = ${jobId} AND status = 'scheduled' AND NOT EXISTS (
            SELECT 1 FROM message_job_recipients WHERE job_id = ${jobId} AND status <> 'queued')
          RETURNING id
        ), r AS (
          UPDATE message_job_recipients SET due_at = ${at.toISOString()}::timestamptz, updated_at = now()
          WHERE job_id IN (SELECT id FROM moved) AND status = 'queued'
          RETURNING 1
        ), f AS (
          UPDATE follow_ups SET due_at = due_at + (${at.toISOString()}::timestamptz - (SELECT scheduled_at FROM before))
          WHERE job_id IN (SELECT id FROM moved) AND state = 'waiting'
            AND (SELECT scheduled_at FROM before) IS NOT NULL
          RETURNING 1
        ) SELECT id FROM moved`,
  );
  return rows.length > 0;
}

/**
 * start (of a repeating series' occurrence): its recipients were inserted, queued, and the job is
 * pending; or its credits could not be reserved, or none was left (`failedWith`): its recipients
 * were inserted failed and the job fails at once, never started (with no recipient at all too).
 */
export async function startOccurrence(
  db: Db,
  jobId: string,
  total: number,
  failedWith: string | null,
): Promise<void> {
  await db.execute(
    failedWith === null
      ? sql`UPDATE message_jobs SET awaiting_start = false, total = ${total}, status = 'pending' WHERE id = ${jobId}`
      : sql`UPDATE message_jobs SET awaiting_start = false, total = ${total}, failed_count = ${total},
              status = 'failed', status_reason = ${failedWith}, started_at = now(), finished_at = now()
            WHERE id = ${jobId}`,
  );
}
