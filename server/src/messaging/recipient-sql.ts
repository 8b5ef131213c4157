import type { SQL } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { refundCtes } from '../credits/credits.ts';
import { type Db, queryRows } from '../db/client.ts';

/**
 * Statement parts shared by the engine's store (dispatch-store.ts) and the jobs API's repository
 * (jobs-repository.ts): job counters, the claim, and "fail => refund" as one statement.
 */

export const ms = (value: number) => sql`(${Math.round(value)}::integer * interval '1 millisecond')`;

/**
 * Runs a hot statement as a named prepared statement on a PostgreSQL pool: parsed and planned
 * once per connection instead of on every message. Elsewhere (PGlite, a transaction) it runs as usual.
 */
export async function hotRows<T extends Record<string, unknown>>(
  db: Db,
  name: string,
  query: SQL,
): Promise<T[]> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) {
    const { sql: text, params } = (db as unknown as { dialect: PgDialect }).dialect.sqlToQuery(query);
    const result = await client.query<T>({ name, text, values: params as unknown[] });
    return result.rows;
  }
  return queryRows<T>(db, query);
}

type Delta = number | SQL;

/**
 * The due time of a paused job's queued recipients: past every claim, sweep and due-time probe,
 * which all ask for `due_at <= now()`. Pausing moves them here and resuming back, row by row, so a
 * claim racing the pause re-checks the row after the pause commits and leaves it (the claim's
 * `FOR UPDATE` re-reads a row changed under it).
 */
export const PAUSED_DUE = sql.raw(`'9999-12-31T00:00:00Z'::timestamptz`);

/** How many recent outcomes the auto-pause looks at, and how many of them failing pauses a job. */
export const AUTO_PAUSE_WINDOW = 20;
const WINDOW_MASK = (1 << AUTO_PAUSE_WINDOW) - 1;

/** The job's recent-outcome bits after `sent` successes then `failed` failures (newest lowest). */
function shiftedOutcomes(sent: Delta, failed: Delta): SQL {
  const afterSent = sql`((j.recent_failures << least(${sent}::int, ${AUTO_PAUSE_WINDOW})) & ${WINDOW_MASK})`;
  return sql`(((${afterSent} << least(${failed}::int, ${AUTO_PAUSE_WINDOW})) | ((1 << least(${failed}::int, ${AUTO_PAUSE_WINDOW})) - 1)) & ${WINDOW_MASK})`;
}

/** How many of the last 20 outcomes in these bits failed. */
const failuresIn = (bits: SQL) => sql`bit_count((${bits})::bit(${sql.raw(String(AUTO_PAUSE_WINDOW))}))::int`;

/**
 * The auto-pause (DECISIONS.md): a running job with 20 outcomes or more pauses itself when more
 * than half of its last 20 failed. Returns the status and reason columns' new values for an
 * update of `j` that records `sent` and `failed` send outcomes (`done`: every recipient has one).
 */
export function outcomeColumns(sent: Delta, failed: Delta, done: SQL, otherwise: SQL): SQL {
  const bits = shiftedOutcomes(sent, failed);
  const failures = failuresIn(bits);
  const pauses = sql`(NOT ${done} AND j.status IN ('pending', 'scheduled', 'processing')
      AND j.sent_count + ${sent}::int + j.failed_count + ${failed}::int >= ${AUTO_PAUSE_WINDOW}
      AND ${failures} * 2 > ${AUTO_PAUSE_WINDOW})`;
  return sql`recent_failures = ${bits},
        status = CASE WHEN ${done} THEN (CASE WHEN j.failed_count + ${failed}::int > 0 THEN 'failed' ELSE 'completed' END)
                      WHEN ${pauses} THEN 'paused'
                      ELSE ${otherwise} END,
        status_reason = CASE WHEN ${pauses}
                             THEN 'Paused: ' || ${failures} || ' of the last ${sql.raw(String(AUTO_PAUSE_WINDOW))} messages failed'
                             ELSE j.status_reason END,
        waiting_since = CASE WHEN ${pauses} THEN NULL ELSE j.waiting_since END`;
}

/**
 * Moves the queued recipients of jobs an update just paused (`pausedJobs`: a CTE with `id` and
 * `status`) out of the queue, in the same statement.
 */
export const holdPausedCte = (pausedJobs: string) =>
  sql`UPDATE message_job_recipients q SET due_at = ${PAUSED_DUE}, updated_at = now()
      WHERE q.job_id IN (SELECT id FROM ${sql.raw(pausedJobs)} WHERE status = 'paused')
        AND q.status = 'queued' AND q.due_at < ${PAUSED_DUE}`;

/**
 * The job-counter update shared by every outcome: adds to the counters, and when every
 * recipient has an outcome, finishes the job: `completed` with no failure, else `failed`.
 * A numeric `sent` or `failed` above 0 also marks the job started (its claim may not have).
 */
export function countersUpdate(
  jobId: unknown,
  d: { sent?: Delta; failed?: Delta; cancelled?: Delta; sendOutcome?: boolean },
) {
  const s = d.sent ?? 0;
  const f = d.failed ?? 0;
  const c = d.cancelled ?? 0;
  const done = sql`(j.sent_count + ${s}::int + j.failed_count + ${f}::int + j.cancelled_count + ${c}::int >= j.total)`;
  const sent = (typeof s === 'number' ? s : 1) + (typeof f === 'number' ? f : 1) > 0;
  const running = sent
    ? sql`(CASE WHEN j.status IN ('pending', 'scheduled') THEN 'processing' ELSE j.status END)`
    : sql`j.status`;
  // Outcomes of the transport (not sweeps or cancellations) feed the auto-pause.
  const status = d.sendOutcome
    ? outcomeColumns(s, f, done, running)
    : sql`status = CASE WHEN ${done} THEN (CASE WHEN j.failed_count + ${f}::int > 0 THEN 'failed' ELSE 'completed' END)
                      ELSE ${running} END`;
  return sql`UPDATE message_jobs j
    SET sent_count = j.sent_count + ${s}::int,
        failed_count = j.failed_count + ${f}::int,
        cancelled_count = j.cancelled_count + ${c}::int,
        ${status},
        started_at = ${sent ? sql`coalesce(j.started_at, now())` : sql`j.started_at`},
        finished_at = CASE WHEN ${done} THEN now() ELSE j.finished_at END
    WHERE j.id = ${jobId}`;
}

export type FailedGroup = { jobId: string; userId: string; count: number };

/**
 * Fails a set of recipients chosen by `where` (a condition on `r`), counts them on their jobs and
 * refunds one credit each, with its ledger row, in one statement. Returns, per job, how many failed.
 * A recipient that was counted sent (WhatsApp refused it after the send: a late error status)
 * moves from the sent count to the failed one. Run it in a transaction: the jobs are locked first.
 */
export async function failAndRefundWhere(
  db: Db,
  where: SQL,
  error: string | SQL,
  note: string,
  limit: number,
): Promise<FailedGroup[]> {
  // Jobs first, then their recipients: the jobs API's lock order (delete, retry), so that a sweep
  // and a delete of the same job cannot deadlock.
  const jobs = await queryRows<{ job_id: string }>(
    db,
    sql`SELECT DISTINCT r.job_id FROM message_job_recipients r WHERE ${where}`,
  );
  if (jobs.length === 0) return [];
  const jobIds = jobs.map((j) => j.job_id);
  await db.execute(
    sql`SELECT id FROM message_jobs WHERE id = ANY(${sql.param(jobIds)}::text[]) ORDER BY id FOR UPDATE`,
  );
  const rows = await queryRows<{ job_id: string; user_id: string; n: number }>(
    db,
    sql`WITH picked AS (
          SELECT r.id, r.status = 'sent' AS was_sent FROM message_job_recipients r
          WHERE (${where}) AND r.job_id = ANY(${sql.param(jobIds)}::text[])
          ORDER BY r.id LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), failed AS (
          UPDATE message_job_recipients r
          SET status = 'failed', error = ${error}, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          FROM picked WHERE r.id = picked.id
          RETURNING r.job_id, picked.was_sent
        ), per_job AS (
          SELECT job_id, count(*)::int AS n, count(*) FILTER (WHERE was_sent)::int AS s FROM failed GROUP BY job_id
        ), jobs AS (
          UPDATE message_jobs j
          SET failed_count = j.failed_count + p.n,
              sent_count = j.sent_count - p.s,
              status = CASE WHEN j.sent_count - p.s + j.failed_count + p.n + j.cancelled_count >= j.total THEN 'failed'
                            ELSE j.status END,
              finished_at = CASE WHEN j.sent_count - p.s + j.failed_count + p.n + j.cancelled_count >= j.total THEN now()
                                 ELSE j.finished_at END
          FROM per_job p WHERE j.id = p.job_id
          RETURNING j.id AS job_id, j.user_id, p.n
        ), ${refundCtes('jobs', note)}
        SELECT job_id, user_id, n FROM jobs`,
  );
  return rows.map((r) => ({ jobId: r.job_id, userId: r.user_id, count: Number(r.n) }));
}
