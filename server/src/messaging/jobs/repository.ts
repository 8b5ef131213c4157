import { NON_RETRYABLE_ERRORS } from '@wa/contract';
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type Db, queryRows } from '../../db/client.ts';
import { media, messageJobRecipients, messageJobs } from '../../db/schema.ts';
import { isFinishedJob } from '../../db/vocabulary-sql.ts';

/**
 * The jobs API's queries: lists, summaries, details, and the reads of the actions. Functions take a `Db`,
 * which may be a transaction. The engine's statements are in engine/ (transitions.ts).
 */

export type JobRow = typeof messageJobs.$inferSelect;
export type RecipientRow = typeof messageJobRecipients.$inferSelect;
export type JobStatusValue = JobRow['status'];

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
             WHERE ${range} AND ${isFinishedJob(sql.raw('j.status'))} AND ${partial}
             GROUP BY j.status
             UNION ALL
             SELECT j.status, count(*), sum(j.total), sum(j.sent_count), sum(j.failed_count)
             FROM message_jobs j
             WHERE ${range} AND NOT ${isFinishedJob(sql.raw('j.status'))}
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

/**
 * The rule, once: a failed recipient whose `error` (the column given) is one a retry may fix
 * ('Not on WhatsApp' fails again). Retry Failed requeues only these (jobs/actions.ts) and the
 * Jobs page counts them (countRetryable).
 */
export const retryableError = (error: SQL): SQL =>
  sql`(${error} IS NOT NULL AND ${error} <> ALL(${sql.param([...NON_RETRYABLE_ERRORS])}::text[]))`;

/** The job's failed recipients, and of them those matching `retryable` (a retry may fix them). */
export async function countFailedAndRetryable(
  db: Db,
  jobId: string,
  retryable: SQL,
): Promise<{ failed: number; retryable: number }> {
  const [row] = await db
    .select({
      failed: sql<number>`count(*)::int`,
      retryable: sql<number>`(count(*) FILTER (WHERE ${retryable}))::int`,
    })
    .from(messageJobRecipients)
    .where(and(eq(messageJobRecipients.jobId, jobId), eq(messageJobRecipients.status, 'failed')));
  return { failed: row?.failed ?? 0, retryable: row?.retryable ?? 0 };
}

/**
 * Of the jobs `jobIds` of `userId`, how many failed recipients a retry may fix, by job id: a
 * failure such as 'Not on WhatsApp' (NON_RETRYABLE_ERRORS) fails again. Other users' jobs are
 * absent. recipients_job_idx serves each job's recipients.
 */
export async function countRetryable(
  db: Db,
  userId: string,
  jobIds: string[],
): Promise<Record<string, number>> {
  const rows = await queryRows<{ id: string; n: number }>(
    db,
    sql`SELECT j.id, count(r.id) FILTER (
          WHERE r.status = 'failed' AND r.error IS NOT NULL
            AND ${retryableError(sql`r.error`)})::int AS n
        FROM message_jobs j LEFT JOIN message_job_recipients r ON r.job_id = j.id
        WHERE j.user_id = ${userId} AND j.id = ANY(${sql.param(jobIds)}::text[])
        GROUP BY j.id`,
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.n]));
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

/** Cloud API jobs: what Meta charges for the delivered messages, in ten-thousandths of a rupee. */
export async function jobCostUnits(db: Db, jobId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<string | number | null>`sum(${messageJobRecipients.costUnits})` })
    .from(messageJobRecipients)
    .where(eq(messageJobRecipients.jobId, jobId));
  return Number(row?.n ?? 0);
}

/** jobCostUnits of several jobs at once (those without a charged recipient: absent). */
export async function jobsCostUnits(db: Db, jobIds: string[]): Promise<Map<string, number>> {
  if (jobIds.length === 0) return new Map();
  const rows = await queryRows<{ job_id: string; n: string | number }>(
    db,
    sql`SELECT job_id, sum(cost_units) AS n FROM message_job_recipients
        WHERE job_id = ANY(${sql.param(jobIds)}::text[]) AND cost_units IS NOT NULL
        GROUP BY job_id`,
  );
  return new Map(rows.map((r) => [r.job_id, Number(r.n)]));
}
