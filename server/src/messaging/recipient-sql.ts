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
 * The job-counter update shared by every outcome: adds to the counters, and when every
 * recipient has an outcome, finishes the job: `completed` with no failure, else `failed`.
 * A numeric `sent` or `failed` above 0 also marks the job started (its claim may not have).
 */
export function countersUpdate(jobId: unknown, d: { sent?: Delta; failed?: Delta; cancelled?: Delta }) {
  const s = d.sent ?? 0;
  const f = d.failed ?? 0;
  const c = d.cancelled ?? 0;
  const done = sql`(j.sent_count + ${s}::int + j.failed_count + ${f}::int + j.cancelled_count + ${c}::int >= j.total)`;
  const sent = (typeof s === 'number' ? s : 1) + (typeof f === 'number' ? f : 1) > 0;
  const running = sent
    ? sql`(CASE WHEN j.status IN ('pending', 'scheduled') THEN 'processing' ELSE j.status END)`
    : sql`j.status`;
  return sql`UPDATE message_jobs j
    SET sent_count = j.sent_count + ${s}::int,
        failed_count = j.failed_count + ${f}::int,
        cancelled_count = j.cancelled_count + ${c}::int,
        status = CASE WHEN ${done} THEN (CASE WHEN j.failed_count + ${f}::int > 0 THEN 'failed' ELSE 'completed' END)
                      ELSE ${running} END,
        started_at = ${sent ? sql`coalesce(j.started_at, now())` : sql`j.started_at`},
        finished_at = CASE WHEN ${done} THEN now() ELSE j.finished_at END
    WHERE j.id = ${jobId}`;
}

export type FailedGroup = { jobId: string; userId: string; count: number };

/**
 * Fails a set of recipients chosen by `where` (a condition on `r`), counts them on their jobs and
 * refunds one credit each, with its ledger row, in one statement. Returns, per job, how many failed.
 * Run it in a transaction: the jobs are locked first.
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
          SELECT r.id FROM message_job_recipients r
          WHERE (${where}) AND r.job_id = ANY(${sql.param(jobIds)}::text[])
          ORDER BY r.id LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), failed AS (
          UPDATE message_job_recipients r
          SET status = 'failed', error = ${error}, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          FROM picked WHERE r.id = picked.id
          RETURNING r.job_id
        ), per_job AS (
          SELECT job_id, count(*)::int AS n FROM failed GROUP BY job_id
        ), jobs AS (
          UPDATE message_jobs j
          SET failed_count = j.failed_count + p.n,
              status = CASE WHEN j.sent_count + j.failed_count + p.n + j.cancelled_count >= j.total THEN 'failed'
                            ELSE j.status END,
              finished_at = CASE WHEN j.sent_count + j.failed_count + p.n + j.cancelled_count >= j.total THEN now()
                                 ELSE j.finished_at END
          FROM per_job p WHERE j.id = p.job_id
          RETURNING j.id AS job_id, j.user_id, p.n
        ), ${refundCtes('jobs', note)}
        SELECT job_id, user_id, n FROM jobs`,
  );
  return rows.map((r) => ({ jobId: r.job_id, userId: r.user_id, count: Number(r.n) }));
}
