import type { SQL } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { type Db, queryRows } from '../../db/client.ts';
import { isFinishedJob } from '../../db/vocabulary-sql.ts';
import { forbidden } from '../../errors.ts';
import { JOB_MESSAGES } from '../messages.ts';

/**
 * The rules of a job's state, each written once: when a job finishes, when it pauses itself,
 * whether its owner may still send, and how a paused job holds its queue. The transitions
 * (transitions.ts) build their statements from these; nothing else writes them.
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

// ---------------------------------------------------------------- the owner may still send

type Owner = { disabled: boolean; isBulkMessagingEnabled: boolean };

/**
 * The owner may still send a job of this audience: the account is enabled, and individuals need
 * the bulk flag (an admin may revoke it while jobs wait). Checked when a send is accepted or
 * retried; `ownerForbidden` is the same rule for the engine's statements.
 */
export function assertOwnerMaySend(owner: Owner, audience: 'groups' | 'individuals'): void {
  if (owner.disabled) throw forbidden(JOB_MESSAGES.accountDisabled);
  if (audience === 'individuals' && !owner.isBulkMessagingEnabled) throw forbidden(JOB_MESSAGES.bulkDisabled);
}

/** assertOwnerMaySend's rule in SQL: job `j` of owner `u` may no longer be sent. */
export const ownerForbidden = (j: string, u: string) =>
  sql.raw(`(${u}.disabled OR (${j}.audience = 'individuals' AND NOT ${u}.is_bulk_messaging_enabled))`);

/** Why a recipient `r` of a forbidden job fails, read from its owner's row. */
export const forbiddenReason = sql`CASE WHEN (SELECT u.disabled FROM message_jobs j JOIN users u ON u.id = j.user_id
    WHERE j.id = r.job_id) THEN ${JOB_MESSAGES.accountDisabled} ELSE ${JOB_MESSAGES.bulkDisabled} END`;

/** Recipient `r` belongs to a job its owner may still send (read at every claim). */
export const ownerMaySend = (r: string) => sql`NOT EXISTS (
      SELECT 1 FROM message_jobs j JOIN users u ON u.id = j.user_id
      WHERE j.id = ${sql.raw(r)}.job_id AND ${ownerForbidden('j', 'u')})`;

// ---------------------------------------------------------------- an account's pause

/**
 * An account row `s` whose one-to-one sends are paused now (463, CAPPED; accounts/ writes the
 * pause): the claim leaves its one-to-one recipients queued, the failover moves them.
 */
export const sendPausedNow = (s: SQL) =>
  sql`(${s}.send_paused AND (${s}.send_paused_until IS NULL OR ${s}.send_paused_until > now()))`;

// ---------------------------------------------------------------- a paused job's queue

/**
 * The due time of a paused job's queued recipients: past every claim, sweep and due-time probe,
 * which all ask for `due_at <= now()`. Pausing moves them here and resuming back, row by row, so a
 * claim racing the pause re-checks the row after the pause commits and leaves it (the claim's
 * `FOR UPDATE` re-reads a row changed under it).
 */
export const PAUSED_DUE = sql.raw(`'9999-12-31T00:00:00Z'::timestamptz`);

/** Moves the queued recipients of the jobs `jobs` (a subquery of ids) out of the queue. */
export const holdQueued = (jobs: SQL) =>
  sql`UPDATE message_job_recipients q SET due_at = ${PAUSED_DUE}, updated_at = now()
      WHERE q.job_id IN (${jobs}) AND q.status = 'queued' AND q.due_at < ${PAUSED_DUE}`;

// ---------------------------------------------------------------- counters, finishing, auto-pause

type Delta = number | SQL;
/**
 * The SET of a job that has recipients to send again (a retry, a requeue after a late refusal): a
 * finished job is `reopened` ('pending' before its next claim, 'processing' while it goes on) and
 * no longer finished; an unfinished one keeps its status.
 */
export const reopenJob = (reopened: 'pending' | 'processing') =>
  sql`status = CASE WHEN ${isFinishedJob(sql.raw('status'))} THEN ${reopened} ELSE status END, finished_at = NULL`;

export type Deltas = { sent?: Delta; failed?: Delta; cancelled?: Delta };

/** How many recent outcomes the auto-pause looks at, and how many of them failing pauses a job. */
export const AUTO_PAUSE_WINDOW = 20;
const WINDOW_MASK = (1 << AUTO_PAUSE_WINDOW) - 1;

/** The job's recent-outcome bits after `sent` successes then `failed` failures (newest lowest). */
function shiftedOutcomes(sent: Delta, failed: Delta): SQL {
  const afterSent = sql`((j.recent_failures << least(${sent}::int, ${AUTO_PAUSE_WINDOW})) & ${WINDOW_MASK})`;
  if (failed === 0) return afterSent;
  return sql`(((${afterSent} << least(${failed}::int, ${AUTO_PAUSE_WINDOW})) | ((1 << least(${failed}::int, ${AUTO_PAUSE_WINDOW})) - 1)) & ${WINDOW_MASK})`;
}

/**
 * The finishing rule: job `j` finishes when every recipient has an outcome (sent + failed +
 * cancelled reach the total), `completed` with no failure, else `failed`.
 */
function finishing(d: Required<Deltas>) {
  const done = sql`(j.sent_count + ${d.sent}::int + j.failed_count + ${d.failed}::int + j.cancelled_count + ${d.cancelled}::int >= j.total)`;
  const finished = sql`(CASE WHEN j.failed_count + ${d.failed}::int > 0 THEN 'failed' ELSE 'completed' END)`;
  return { done, finished };
}

/**
 * The SET list of an update of job `j` that adds outcomes to its counters, with everything that
 * follows from them: the finishing rule; `starts` (a send outcome: a pending or scheduled job is
 * now processing); `outcome`: the transport's outcomes feed the auto-pause window (docs/decisions.md, Sending policy per account:
 * a running job with 20 outcomes or more pauses itself when more than half of its last 20 failed).
 */
export function jobCounters(deltas: Deltas, opts: { starts?: boolean; outcome?: boolean } = {}): SQL {
  const d = { sent: deltas.sent ?? 0, failed: deltas.failed ?? 0, cancelled: deltas.cancelled ?? 0 };
  const { done, finished } = finishing(d);
  const running = opts.starts
    ? sql`(CASE WHEN j.status IN ('pending', 'scheduled') THEN 'processing' ELSE j.status END)`
    : sql`j.status`;
  let status = sql`status = CASE WHEN ${done} THEN ${finished} ELSE ${running} END`;
  if (opts.outcome && d.failed === 0) {
    status = sql`recent_failures = ${shiftedOutcomes(d.sent, 0)}, ${status}`;
  } else if (opts.outcome) {
    const bits = shiftedOutcomes(d.sent, d.failed);
    const failures = sql`bit_count((${bits})::bit(${sql.raw(String(AUTO_PAUSE_WINDOW))}))::int`;
    const pauses = sql`(NOT ${done} AND j.status IN ('pending', 'scheduled', 'processing')
      AND j.sent_count + ${d.sent}::int + j.failed_count + ${d.failed}::int >= ${AUTO_PAUSE_WINDOW}
      AND ${failures} * 2 > ${AUTO_PAUSE_WINDOW})`;
    status = sql`recent_failures = ${bits},
        status = CASE WHEN ${done} THEN ${finished} WHEN ${pauses} THEN 'paused' ELSE ${running} END,
        status_reason = CASE WHEN ${pauses}
                             THEN 'Paused: ' || ${failures} || ' of the last ${sql.raw(String(AUTO_PAUSE_WINDOW))} messages failed'
                             ELSE j.status_reason END,
        waiting_since = CASE WHEN ${pauses} THEN NULL ELSE j.waiting_since END`;
  }
  return sql`sent_count = j.sent_count + ${d.sent}::int,
        failed_count = j.failed_count + ${d.failed}::int,
        cancelled_count = j.cancelled_count + ${d.cancelled}::int,
        ${status},
        started_at = ${opts.starts ? sql`coalesce(j.started_at, now())` : sql`j.started_at`},
        finished_at = CASE WHEN ${done} THEN now() ELSE j.finished_at END`;
}
