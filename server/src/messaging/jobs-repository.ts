import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { refundCtes } from '../credits/credits.ts';
import { type Db, queryRows } from '../db/client.ts';
import { media, messageJobRecipients, messageJobs } from '../db/schema.ts';
import { JOB_MESSAGES } from './messages.ts';
import { countersUpdate, type FailedGroup, failAndRefundWhere, PAUSED_DUE } from './recipient-sql.ts';

/**
 * The jobs API's queries: acceptance, lists, details, retry and delete. Functions take a `Db`,
 * which may be a transaction. The engine's statements are in dispatch-store.ts.
 */

export type JobRow = typeof messageJobs.$inferSelect;
export type RecipientRow = typeof messageJobRecipients.$inferSelect;
export type JobStatusValue = JobRow['status'];

// ---------------------------------------------------------------- acceptance

/** Stores a file once: the id is its sha256, so a second job with the same file reuses the row. */
export async function storeMedia(db: Db, file: { id: string; mime: string; bytes: Buffer }): Promise<void> {
  await db
    .insert(media)
    .values({ id: file.id, mime: file.mime, size: file.bytes.length, bytes: file.bytes })
    .onConflictDoNothing({ target: media.id });
}

export async function insertJob(db: Db, values: typeof messageJobs.$inferInsert): Promise<void> {
  await db.insert(messageJobs).values(values);
}

/**
 * Inserts every recipient of a job in one `INSERT ... SELECT FROM unnest(...)` statement: a
 * `.values()` of 100k rows would pass the 65,535 bind-parameter limit (STACK.md). `sessionOf`:
 * each recipient's account when the job is spread over several (else the job's session).
 */
export async function insertRecipients(
  db: Db,
  job: { jobId: string; sessionId: string; dueAt: Date },
  chatIds: string[],
  chatNames: Array<string | null>,
  contents: string[] | null = null,
  sessionOf: string[] | null = null,
): Promise<void> {
  const session = sessionOf ? sql`coalesce(c.session_id, ${job.sessionId})` : sql`${job.sessionId}`;
  const sessions = sessionOf ? sql`, ${sql.param(sessionOf)}::text[]` : sql``;
  const sessionColumn = sessionOf ? sql`, session_id` : sql``;
  if (contents === null) {
    await db.execute(
      sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, chat_name, due_at)
          SELECT ${job.jobId}, ${session}, c.chat_id, c.chat_name, ${job.dueAt}::timestamptz
          FROM unnest(${sql.param(chatIds)}::text[], ${sql.param(chatNames)}::text[]${sessions})
            AS c(chat_id, chat_name${sessionColumn})`,
    );
    return;
  }
  await db.execute(
    sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, chat_name, content, due_at)
        SELECT ${job.jobId}, ${session}, c.chat_id, c.chat_name, c.content, ${job.dueAt}::timestamptz
        FROM unnest(${sql.param(chatIds)}::text[], ${sql.param(chatNames)}::text[], ${sql.param(contents)}::text[]${sessions})
          AS c(chat_id, chat_name, content${sessionColumn})`,
  );
}

// ---------------------------------------------------------------- Idempotency-Key

export type IdempotentAnswer = { requestHash: string; response: Record<string, unknown> | null };

/** The answer stored for a key within the last 24 hours, if any. */
export async function findIdempotentAnswer(
  db: Db,
  userId: string,
  key: string,
): Promise<IdempotentAnswer | undefined> {
  const [row] = await queryRows<{ request_hash: string; response: Record<string, unknown> | null }>(
    db,
    sql`SELECT request_hash, response FROM idempotency_keys
        WHERE user_id = ${userId} AND key = ${key} AND created_at > now() - interval '24 hours'`,
  );
  return row ? { requestHash: row.request_hash, response: row.response } : undefined;
}

/**
 * Takes the key for this request (a new key, or one older than 24 hours) and returns undefined;
 * when the key is held by a request of the last 24 hours, returns that request's answer. A
 * concurrent request holding the key makes this wait until it commits or rolls back.
 */
export async function claimIdempotencyKey(
  db: Db,
  userId: string,
  key: string,
  requestHash: string,
): Promise<IdempotentAnswer | undefined> {
  const taken = await queryRows(
    db,
    sql`INSERT INTO idempotency_keys (user_id, key, request_hash) VALUES (${userId}, ${key}, ${requestHash})
        ON CONFLICT (user_id, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, response = NULL, created_at = now()
          WHERE idempotency_keys.created_at <= now() - interval '24 hours'
        RETURNING 1`,
  );
  if (taken.length > 0) return undefined;
  const [row] = await queryRows<{ request_hash: string; response: Record<string, unknown> | null }>(
    db,
    sql`SELECT request_hash, response FROM idempotency_keys WHERE user_id = ${userId} AND key = ${key}`,
  );
  return { requestHash: row?.request_hash ?? '', response: row?.response ?? null };
}

export async function saveIdempotentAnswer(
  db: Db,
  userId: string,
  key: string,
  response: Record<string, unknown>,
): Promise<void> {
  await db.execute(
    sql`UPDATE idempotency_keys SET response = ${JSON.stringify(response)}::jsonb
        WHERE user_id = ${userId} AND key = ${key}`,
  );
}

// ---------------------------------------------------------------- jobs API

export async function findJob(db: Db, jobId: string): Promise<JobRow | undefined> {
  const [row] = await db.select().from(messageJobs).where(eq(messageJobs.id, jobId));
  return row;
}

export async function lockJob(db: Db, jobId: string): Promise<JobRow | undefined> {
  const [row] = await db.select().from(messageJobs).where(eq(messageJobs.id, jobId)).for('update');
  return row;
}

export type JobFilter = {
  from?: Date;
  to?: Date;
  statuses?: JobStatusValue[];
  /** A job id's beginning, or text in its message (any case). */
  q?: string;
  /** Keyset: jobs older than this one (newest first by created_at, id). */
  after?: { createdAt: Date; id: string };
  limit: number;
  offset: number;
};

/** The range and search of a filter, without status and paging: what the summary counts. */
function rangeWhere(userId: string, f: Omit<JobFilter, 'limit' | 'offset' | 'statuses' | 'after'>): SQL {
  const q = f.q?.trim();
  return sql`j.user_id = ${userId}
    ${f.from ? sql`AND j.created_at >= ${f.from.toISOString()}::timestamptz` : sql``}
    ${f.to ? sql`AND j.created_at <= ${f.to.toISOString()}::timestamptz` : sql``}
    ${q ? sql`AND (j.id LIKE ${`${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} OR strpos(lower(j.content), lower(${q})) > 0)` : sql``}`;
}

/** The jobs of a page's filter, from `after` on when it has one (keyset). */
function pageWhere(userId: string, f: JobFilter): SQL {
  return sql`${rangeWhere(userId, f)}
    ${f.statuses ? sql`AND j.status = ANY(${sql.param(f.statuses)}::text[])` : sql``}
    ${f.after ? sql`AND (j.created_at, j.id) < (${f.after.createdAt.toISOString()}::timestamptz, ${f.after.id})` : sql``}`;
}

/**
 * Newest first, in the index's order, NULLS LAST included: with PostgreSQL's default for DESC
 * (NULLS FIRST) the index cannot give the order, and every page sorted all of the user's jobs
 * (80 ms at 1,00,000).
 */
const PAGE_ORDER = sql`j.created_at DESC NULLS LAST, j.id DESC NULLS LAST`;

/** The ids of one page that skips `offset` jobs: an index-only scan over the skipped ones. */
export function pageIdsQuery(userId: string, f: JobFilter): SQL {
  return sql`SELECT j.id FROM message_jobs j WHERE ${pageWhere(userId, f)}
        ORDER BY ${PAGE_ORDER}
        LIMIT ${f.limit} OFFSET ${f.after ? 0 : f.offset}`;
}

const pageJobs = alias(messageJobs, 'j');

/** The rows of one page that skips nothing (the first, or any by keyset), in one statement. */
export const pageRowsQuery = (db: Db, userId: string, f: JobFilter) =>
  db.select().from(pageJobs).where(pageWhere(userId, f)).orderBy(PAGE_ORDER).limit(f.limit);

/**
 * One page of a user's jobs, newest first (by keyset after `after`, else by offset). A page that
 * skips nothing reads its rows in the index's order; one that skips rows by offset finds its ids
 * first, then reads those rows.
 */
export async function listJobs(db: Db, userId: string, f: JobFilter): Promise<JobRow[]> {
  if (f.after || f.offset === 0) return pageRowsQuery(db, userId, f);
  const ids = await queryRows<{ id: string }>(db, pageIdsQuery(userId, f));
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(messageJobs)
    .where(
      inArray(
        messageJobs.id,
        ids.map((r) => r.id),
      ),
    )
    .orderBy(desc(messageJobs.createdAt), desc(messageJobs.id));
  return rows;
}

export type JobsSummaryRow = {
  jobs: number;
  byStatus: Record<'pending' | 'scheduled' | 'processing' | 'paused' | 'completed' | 'failed', number>;
  recipients: number;
  sent: number;
  failed: number;
};

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Counts of the user's jobs in the range and search, by status, with their recipients. Without a
 * search, finished jobs come from job_stats (whole UTC days inside the range) plus the jobs of the
 * range's partial first and last days, and moving jobs from their own small index: the cost does
 * not grow with the history. A search reads every job in the range.
 */
export async function summariseJobs(
  db: Db,
  userId: string,
  f: Omit<JobFilter, 'limit' | 'offset' | 'statuses' | 'after'>,
): Promise<JobsSummaryRow> {
  const parts = f.q?.trim()
    ? sql`SELECT j.status, count(*) AS jobs, sum(j.total) AS recipients, sum(j.sent_count) AS sent,
                 sum(j.failed_count) AS failed
          FROM message_jobs j WHERE ${rangeWhere(userId, f)} GROUP BY j.status`
    : finishedAndMoving(userId, f);
  const rows = await queryRows<{
    status: string;
    jobs: number;
    recipients: string;
    sent: string;
    failed: string;
  }>(
    db,
    sql`SELECT p.status, sum(p.jobs)::int AS jobs, coalesce(sum(p.recipients), 0)::text AS recipients,
               coalesce(sum(p.sent), 0)::text AS sent, coalesce(sum(p.failed), 0)::text AS failed
        FROM (${parts}) AS p GROUP BY p.status`,
  );
  const byStatus: JobsSummaryRow['byStatus'] = {
    pending: 0,
    scheduled: 0,
    processing: 0,
    paused: 0,
    completed: 0,
    failed: 0,
  };
  const summary: JobsSummaryRow = { jobs: 0, byStatus, recipients: 0, sent: 0, failed: 0 };
  for (const r of rows) {
    if (r.status in byStatus) byStatus[r.status as keyof typeof byStatus] += r.jobs;
    summary.jobs += r.jobs;
    summary.recipients += Number(r.recipients);
    summary.sent += Number(r.sent);
    summary.failed += Number(r.failed);
  }
  return summary;
}

/** The summary's rows without a search: job_stats for whole days, the jobs table for the rest. */
function finishedAndMoving(userId: string, f: { from?: Date; to?: Date }): SQL {
  // Whole UTC days inside [from, to]: from the first midnight at or after `from` to the last
  // midnight at or before `to` (that last day itself is partial, read from the jobs).
  const lo = f.from ? Math.ceil(f.from.getTime() / DAY_MS) * DAY_MS : null;
  const hi = f.to ? Math.floor(f.to.getTime() / DAY_MS) * DAY_MS : null;
  const range = rangeWhere(userId, f);
  const partial =
    lo === null && hi === null
      ? sql`false`
      : sql`(${lo === null ? sql`false` : sql`j.created_at < ${new Date(lo).toISOString()}::timestamptz`}
             OR ${hi === null ? sql`false` : sql`j.created_at >= ${new Date(hi).toISOString()}::timestamptz`})`;
  return sql`SELECT s.status, sum(s.jobs) AS jobs, sum(s.recipients) AS recipients, sum(s.sent) AS sent,
                    sum(s.failed) AS failed
             FROM job_stats s
             WHERE s.user_id = ${userId}
               ${lo === null ? sql`` : sql`AND s.day >= ${dayOf(lo)}::date`}
               ${hi === null ? sql`` : sql`AND s.day < ${dayOf(hi)}::date`}
             GROUP BY s.status
             UNION ALL
             SELECT j.status, count(*), sum(j.total), sum(j.sent_count), sum(j.failed_count)
             FROM message_jobs j
             WHERE ${range} AND j.status IN ('completed', 'failed') AND ${partial}
             GROUP BY j.status
             UNION ALL
             SELECT j.status, count(*), sum(j.total), sum(j.sent_count), sum(j.failed_count)
             FROM message_jobs j
             WHERE ${range} AND j.status NOT IN ('completed', 'failed')
             GROUP BY j.status`;
}

/**
 * Folds each job_stats bucket's appended rows into one, and drops buckets that sum to nothing.
 * Safe beside writers and other nodes: a row is deleted (and its figures re-inserted) once.
 */
export async function compactJobStats(db: Db): Promise<void> {
  await db.execute(
    sql`WITH gone AS (
          DELETE FROM job_stats s
          WHERE (s.user_id, s.day, s.status) IN (
            SELECT user_id, day, status FROM job_stats GROUP BY 1, 2, 3 HAVING count(*) > 1 OR sum(jobs) = 0)
          RETURNING s.*
        )
        INSERT INTO job_stats (user_id, day, status, jobs, recipients, sent, failed)
        SELECT user_id, day, status, sum(jobs), sum(recipients), sum(sent), sum(failed)
        FROM gone GROUP BY 1, 2, 3
        HAVING sum(jobs) <> 0 OR sum(recipients) <> 0 OR sum(sent) <> 0 OR sum(failed) <> 0`,
  );
}

export async function jobRecipients(
  db: Db,
  jobId: string,
  limit: number,
  offset: number,
): Promise<RecipientRow[]> {
  if (limit === 0) return [];
  return db
    .select()
    .from(messageJobRecipients)
    .where(eq(messageJobRecipients.jobId, jobId))
    .orderBy(messageJobRecipients.id)
    .limit(limit)
    .offset(offset);
}

export async function findMedia(db: Db, id: string) {
  const [row] = await db.select().from(media).where(eq(media.id, id));
  return row;
}

/** Queues a job's failed recipients again (on `sessionId`); returns how many. */
export async function requeueFailed(db: Db, jobId: string, sessionId: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients
          SET status = 'queued', error = NULL, session_id = ${sessionId},
              -- A paused job's retried recipients wait for its resume with the others.
              due_at = CASE WHEN (SELECT status FROM message_jobs WHERE id = ${jobId}) = 'paused'
                            THEN ${PAUSED_DUE} ELSE now() END,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE job_id = ${jobId} AND status = 'failed'
          RETURNING 1
        ) SELECT count(*)::int AS n FROM r`,
  );
  return rows[0]?.n ?? 0;
}

export async function countFailed(db: Db, jobId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(messageJobRecipients)
    .where(and(eq(messageJobRecipients.jobId, jobId), eq(messageJobRecipients.status, 'failed')));
  return row?.n ?? 0;
}

export async function reopenJob(db: Db, jobId: string, sessionId: string, requeued: number): Promise<void> {
  await db.execute(
    sql`UPDATE message_jobs SET failed_count = failed_count - ${requeued}::int, session_id = ${sessionId},
          -- A spread job keeps every account it used, and the one its failed recipients go to now.
          session_ids = CASE WHEN session_ids IS NULL OR ${sessionId} = ANY(session_ids) THEN session_ids
                             ELSE session_ids || ARRAY[${sessionId}]::text[] END,
          status = CASE WHEN status IN ('completed', 'failed') THEN 'pending' ELSE status END,
          finished_at = NULL, waiting_since = NULL
        WHERE id = ${jobId}`,
  );
}

/** The statuses a job can be paused from: it runs, waits to run, or waits for its time. */
export const PAUSABLE: JobStatusValue[] = ['pending', 'processing', 'scheduled'];

/**
 * Pauses a locked job: its queued recipients leave the queue (see PAUSED_DUE); one being sent
 * stays `sending` and finishes.
 */
export async function pauseJob(db: Db, jobId: string): Promise<void> {
  await db.execute(
    sql`UPDATE message_jobs SET status = 'paused', status_reason = NULL, waiting_since = NULL WHERE id = ${jobId}`,
  );
  await db.execute(
    sql`UPDATE message_job_recipients SET due_at = ${PAUSED_DUE}, updated_at = now()
        WHERE job_id = ${jobId} AND status = 'queued' AND due_at < ${PAUSED_DUE}`,
  );
}

/**
 * Resumes a locked paused job: its status is what it would be had it not paused, its queued
 * recipients fall due now (or at the schedule time), and its failure window starts again.
 * Returns the sessions that have recipients to send.
 */
export async function resumeJob(db: Db, jobId: string): Promise<string[]> {
  await db.execute(
    sql`UPDATE message_jobs
        SET status = CASE WHEN started_at IS NOT NULL THEN 'processing'
                          WHEN scheduled_at > now() THEN 'scheduled' ELSE 'pending' END,
            status_reason = NULL, recent_failures = 0
        WHERE id = ${jobId}`,
  );
  const rows = await queryRows<{ session_id: string }>(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients r
          SET due_at = greatest(now(), coalesce((SELECT scheduled_at FROM message_jobs WHERE id = ${jobId}), now())),
              updated_at = now()
          WHERE r.job_id = ${jobId} AND r.status = 'queued' AND r.due_at >= ${PAUSED_DUE}
          RETURNING r.session_id
        ) SELECT DISTINCT session_id FROM r`,
  );
  return rows.map((r) => r.session_id);
}

/**
 * Cancels the job's queued recipients, counts them on the job and refunds them with the job's
 * ledger row, in one statement; returns how many.
 */
export async function cancelAndRefundQueued(db: Db, jobId: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients SET status = 'cancelled', updated_at = now()
          WHERE job_id = ${jobId} AND status = 'queued'
          RETURNING 1
        ), c AS (
          SELECT count(*)::int AS n FROM r
        ), counted AS (
          ${countersUpdate(jobId, { cancelled: sql`(SELECT n FROM c)` })} AND (SELECT n FROM c) > 0
          RETURNING j.id AS job_id, j.user_id, (SELECT n FROM c) AS n
        ), ${refundCtes('counted', JOB_MESSAGES.cancelled)}
        SELECT n FROM c`,
  );
  return rows[0]?.n ?? 0;
}

/** Recipients of the job a node is sending right now (and whether their lease ran out). */
export async function inFlight(db: Db, jobId: string): Promise<{ live: number; expired: number }> {
  const [row] = await queryRows<{ live: number; expired: number }>(
    db,
    sql`SELECT count(*) FILTER (WHERE lease_expires_at >= now())::int AS live,
               count(*) FILTER (WHERE lease_expires_at < now() OR lease_expires_at IS NULL)::int AS expired
        FROM message_job_recipients WHERE job_id = ${jobId} AND status = 'sending'`,
  );
  return { live: row?.live ?? 0, expired: row?.expired ?? 0 };
}

/** Fails (and refunds) the job's sends whose lease ran out: their delivery is unknown. */
export function failAndRefundSendingOfJob(db: Db, jobId: string): Promise<FailedGroup[]> {
  return failAndRefundWhere(
    db,
    sql`r.job_id = ${jobId} AND r.status = 'sending'`,
    JOB_MESSAGES.interrupted,
    JOB_MESSAGES.interrupted,
    100_000,
  );
}

export async function deleteJobRow(db: Db, jobId: string): Promise<void> {
  await db.delete(messageJobs).where(eq(messageJobs.id, jobId));
}

/** Drops a stored file no job refers to any more. */
export async function deleteOrphanMedia(db: Db, mediaId: string): Promise<void> {
  await db.execute(
    sql`DELETE FROM media WHERE id = ${mediaId}
        AND NOT EXISTS (SELECT 1 FROM message_jobs WHERE media_id = ${mediaId})`,
  );
}

export async function messageFigures(db: Db, userId: string): Promise<{ sent: number; delivered: number }> {
  const [row] = await queryRows<{ sent: number; delivered: number }>(
    db,
    sql`SELECT coalesce(sum(sent_count), 0)::int AS sent, coalesce(sum(delivered_count), 0)::int AS delivered
        FROM message_jobs WHERE user_id = ${userId}`,
  );
  return { sent: row?.sent ?? 0, delivered: row?.delivered ?? 0 };
}

/** The user's balance now (read inside the caller's transaction). */
export async function creditsOf(db: Db, userId: string): Promise<number> {
  const [row] = await queryRows<{ credits: string }>(
    db,
    sql`SELECT credits::text AS credits FROM users WHERE id = ${userId}`,
  );
  return Number(row?.credits ?? 0);
}
