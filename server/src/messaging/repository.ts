import { and, desc, eq, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { type Db, queryRows } from '../db/client.ts';
import { media, messageJobRecipients, messageJobs, waGroups, waSessions } from '../db/schema.ts';

/**
 * Every query of the messaging domain. Functions take a `Db`, which may be a transaction.
 * The hot paths (claim, outcome, bulk insert) are single raw statements: STACK.md measured
 * them at about twice the rate of the same work as several ORM statements.
 */

export type JobRow = typeof messageJobs.$inferSelect;
export type RecipientRow = typeof messageJobRecipients.$inferSelect;
export type JobStatusValue = JobRow['status'];

const ms = (value: number) => sql`(${Math.round(value)}::integer * interval '1 millisecond')`;

/**
 * Runs a hot statement as a named prepared statement on a PostgreSQL pool: parsed and planned
 * once per connection instead of on every message. Elsewhere (PGlite, a transaction) it runs as usual.
 */
async function hotRows<T extends Record<string, unknown>>(db: Db, name: string, query: SQL): Promise<T[]> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) {
    const { sql: text, params } = (db as unknown as { dialect: PgDialect }).dialect.sqlToQuery(query);
    const result = await client.query<T>({ name, text, values: params as unknown[] });
    return result.rows;
  }
  return queryRows<T>(db, query);
}

// ---------------------------------------------------------------- sessions and groups (read only)

export async function findSessionOfUser(
  db: Db,
  userId: string,
  sessionId: string,
): Promise<{ sessionId: string } | undefined> {
  const [row] = await db
    .select({ sessionId: waSessions.sessionId })
    .from(waSessions)
    .where(and(eq(waSessions.sessionId, sessionId), eq(waSessions.userId, userId)));
  return row;
}

export async function firstSessionOfUser(db: Db, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ sessionId: waSessions.sessionId })
    .from(waSessions)
    .where(eq(waSessions.userId, userId))
    .orderBy(waSessions.createdAt, waSessions.id)
    .limit(1);
  return row?.sessionId ?? null;
}

/** Subjects of the cached groups among `chatIds`, to store each recipient's chat name. */
export async function groupSubjects(
  db: Db,
  sessionId: string,
  chatIds: string[],
): Promise<Map<string, string>> {
  const rows = await db
    .select({ groupId: waGroups.groupId, subject: waGroups.subject })
    .from(waGroups)
    .where(eq(waGroups.sessionId, sessionId));
  const wanted = new Set(chatIds);
  return new Map(rows.filter((r) => wanted.has(r.groupId)).map((r) => [r.groupId, r.subject]));
}

export async function groupFigures(db: Db, sessionId: string): Promise<{ groups: number; members: number }> {
  const [row] = await queryRows<{ groups: number; members: number }>(
    db,
    sql`SELECT count(*)::int AS groups, coalesce(sum(jsonb_array_length(participants)), 0)::int AS members
        FROM wa_groups WHERE session_id = ${sessionId}`,
  );
  return { groups: row?.groups ?? 0, members: row?.members ?? 0 };
}

/** Pauses a session's queue (error 463, CAPPED): the two columns of wa_sessions this domain may write. */
export async function pauseSessionQueue(db: Db, sessionId: string, reason: string): Promise<void> {
  await db
    .update(waSessions)
    .set({ sendPaused: true, statusReason: reason, updatedAt: new Date() })
    .where(eq(waSessions.sessionId, sessionId));
}

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
 * `.values()` of 100k rows would pass the 65,535 bind-parameter limit (STACK.md).
 */
export async function insertRecipients(
  db: Db,
  job: { jobId: string; sessionId: string; dueAt: Date },
  chatIds: string[],
  chatNames: Array<string | null>,
): Promise<void> {
  await db.execute(
    sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, chat_name, due_at)
        SELECT ${job.jobId}, ${job.sessionId}, c.chat_id, c.chat_name, ${job.dueAt}::timestamptz
        FROM unnest(${sql.param(chatIds)}::text[], ${sql.param(chatNames)}::text[]) AS c(chat_id, chat_name)`,
  );
}

// ---------------------------------------------------------------- dispatch

export type ClaimedRecipient = { id: number; jobId: string; chatId: string };

type ClaimRow = { id: number | string; job_id: string; chat_id: string };
const toClaimed = (rows: ClaimRow[]): ClaimedRecipient[] =>
  rows.map((r) => ({ id: Number(r.id), jobId: r.job_id, chatId: r.chat_id }));

/**
 * The claim as CTEs (`due`, `claimed`, `started`), to run alone or after recording an outcome.
 * `skipJob` names a job whose row the same statement already updates (a row may be updated once).
 */
function claimCtes(sessionId: string, nodeId: string, limit: number, leaseMs: number, skipJob?: SQL) {
  return sql`due AS (
          SELECT r.id FROM message_job_recipients r
          WHERE r.session_id = ${sessionId} AND r.status = 'queued' AND r.due_at <= now()
            AND NOT EXISTS (SELECT 1 FROM wa_sessions s WHERE s.session_id = ${sessionId} AND s.send_paused)
          ORDER BY r.due_at, r.id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE message_job_recipients r
          SET status = 'sending', lease_owner = ${nodeId}, lease_expires_at = now() + ${ms(leaseMs)},
              attempts = r.attempts + 1, updated_at = now()
          FROM due WHERE r.id = due.id
          RETURNING r.id, r.job_id, r.chat_id
        ), started AS (
          -- Skips a job row another transaction holds (a delete, a retry, which lock the job before
          -- its recipients): waiting here, with recipients locked, could deadlock with them. The
          -- first recorded outcome then marks the job processing (countersUpdate).
          UPDATE message_jobs j
          SET status = 'processing', started_at = coalesce(j.started_at, now()), waiting_since = NULL
          WHERE j.id IN (
            SELECT j2.id FROM message_jobs j2
            WHERE j2.id IN (SELECT job_id FROM claimed) AND j2.status IN ('pending', 'scheduled')
              ${skipJob ? sql`AND j2.id IS DISTINCT FROM (${skipJob})` : sql``}
            FOR UPDATE SKIP LOCKED)
          RETURNING j.id
        )`;
}

/**
 * Claims up to `limit` due recipients of one session in one statement: locks them with
 * `FOR UPDATE SKIP LOCKED` (another node never gets the same rows), marks them `sending` with
 * a lease before anything is sent, and moves their jobs from pending/scheduled to processing.
 * Nothing is claimed while the session's queue is paused.
 */
export async function claimDueRecipients(
  db: Db,
  sessionId: string,
  nodeId: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedRecipient[]> {
  const rows = await hotRows<ClaimRow>(
    db,
    'wa_claim_due_recipients',
    sql`WITH ${claimCtes(sessionId, nodeId, limit, leaseMs)}
        SELECT id, job_id, chat_id FROM claimed ORDER BY id`,
  );
  return toClaimed(rows);
}

/** Milliseconds until the session's next queued recipient is due (0 when one is due now), or null. */
export async function msUntilNextDue(db: Db, sessionId: string): Promise<number | null> {
  const [row] = await hotRows<{ ms: number | string | null }>(
    db,
    'wa_ms_until_next_due',
    sql`SELECT greatest(0, extract(epoch FROM min(due_at) - now()) * 1000)::float8 AS ms
        FROM message_job_recipients WHERE session_id = ${sessionId} AND status = 'queued'`,
  );
  return row?.ms == null ? null : Number(row.ms);
}

/**
 * The job-counter update shared by every outcome: adds to the counters, and when every
 * recipient has an outcome, finishes the job: `completed` with no failure, else `failed`.
 */
function countersUpdate(jobId: unknown, d: { sent?: number; failed?: number; cancelled?: number }) {
  const s = d.sent ?? 0;
  const f = d.failed ?? 0;
  const c = d.cancelled ?? 0;
  const done = sql`(j.sent_count + ${s}::int + j.failed_count + ${f}::int + j.cancelled_count + ${c}::int >= j.total)`;
  // A send outcome also marks the job started, in case its claim could not (see claimCtes).
  const sent = s + f > 0;
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

/** Records a sent recipient and its job's counters in one statement; false when the lease was lost. */
export async function recordSent(
  db: Db,
  recipientId: number,
  nodeId: string,
  messageId: string,
): Promise<boolean> {
  const rows = await hotRows<{ id: string }>(
    db,
    'wa_record_sent',
    sql`WITH r AS (
          UPDATE message_job_recipients
          SET status = 'sent', message_id = ${messageId}, sent_at = now(), error = NULL,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${nodeId}
          RETURNING job_id
        )
        ${countersUpdate(sql`(SELECT job_id FROM r)`, { sent: 1 })}
        RETURNING j.id`,
  );
  return rows.length > 0;
}

/**
 * Records a sent recipient (as `recordSent`) and claims the session's next due recipient, in one
 * statement: an unpaced session keeps exactly one recipient in flight for one round trip per
 * message. `recorded` is false when the lease was lost.
 */
export async function recordSentAndClaimNext(
  db: Db,
  recipientId: number,
  nodeId: string,
  messageId: string,
  next: { sessionId: string; leaseMs: number },
): Promise<{ recorded: boolean; next: ClaimedRecipient | null }> {
  const rows = await hotRows<ClaimRow & { kind: 'recorded' | 'claimed' }>(
    db,
    'wa_record_sent_claim_next',
    sql`WITH r AS (
          UPDATE message_job_recipients
          SET status = 'sent', message_id = ${messageId}, sent_at = now(), error = NULL,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${nodeId}
          RETURNING job_id
        ), counted AS (
          ${countersUpdate(sql`(SELECT job_id FROM r)`, { sent: 1 })}
          RETURNING j.id
        ), ${claimCtes(next.sessionId, nodeId, 1, next.leaseMs, sql`SELECT job_id FROM r`)}
        SELECT 'recorded' AS kind, id::text AS id, NULL AS job_id, NULL AS chat_id FROM counted
        UNION ALL
        SELECT 'claimed' AS kind, id::text, job_id, chat_id FROM claimed`,
  );
  const claimed = rows.filter((r) => r.kind === 'claimed');
  return {
    recorded: rows.some((r) => r.kind === 'recorded'),
    next: claimed.length > 0 ? toClaimed(claimed)[0]! : null,
  };
}

/**
 * Marks one recipient failed (only while this node holds its lease) and counts it on its job.
 * Returns the job and its owner for the refund, which the caller writes in the same transaction.
 */
export async function markFailed(
  db: Db,
  recipientId: number,
  nodeId: string,
  error: string,
): Promise<{ jobId: string; userId: string } | null> {
  const [row] = await queryRows<{ id: string; user_id: string }>(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients
          SET status = 'failed', error = ${error}, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${nodeId}
          RETURNING job_id
        )
        ${countersUpdate(sql`(SELECT job_id FROM r)`, { failed: 1 })}
        RETURNING j.id, j.user_id`,
  );
  return row ? { jobId: row.id, userId: row.user_id } : null;
}

/** Puts claimed recipients that were never handed to the transport back in the queue. */
export async function releaseClaims(db: Db, nodeId: string, recipientIds: number[]): Promise<void> {
  if (recipientIds.length === 0) return;
  await db.execute(
    sql`UPDATE message_job_recipients
        SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0),
            updated_at = now()
        WHERE id = ANY(${sql.param(recipientIds)}::bigint[]) AND status = 'sending' AND lease_owner = ${nodeId}`,
  );
}

export type FailedGroup = { jobId: string; userId: string; count: number };

/**
 * Fails a set of recipients chosen by `where` (a condition on `r`) and counts them on their
 * jobs, in one statement. Returns, per job, how many failed, for the caller's refunds (same transaction).
 */
async function failWhere(db: Db, where: SQL, error: string | SQL, limit: number): Promise<FailedGroup[]> {
  // Jobs first, then their recipients: the jobs API's lock order (delete, retry), so that a sweep
  // and a delete of the same job cannot deadlock. Callers run this in a transaction.
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
          RETURNING j.id, j.user_id, p.n
        )
        SELECT id AS job_id, user_id, n FROM jobs`,
  );
  return rows.map((r) => ({ jobId: r.job_id, userId: r.user_id, count: Number(r.n) }));
}

/** Recipients whose send lease ran out: their node died mid-send, so delivery is unknown. */
export function failExpiredLeases(db: Db, error: string, limit = 1000): Promise<FailedGroup[]> {
  return failWhere(db, sql`r.status = 'sending' AND r.lease_expires_at < now()`, error, limit);
}

/**
 * Recipients of a session left `sending` by another node: this node now holds the session's
 * lease, so their sender has lost it (crashed or cut off) and delivery is unknown.
 */
export function failForeignClaims(
  db: Db,
  sessionId: string,
  nodeId: string,
  error: string,
  limit = 1000,
): Promise<FailedGroup[]> {
  return failWhere(
    db,
    sql`r.session_id = ${sessionId} AND r.status = 'sending' AND r.lease_owner IS DISTINCT FROM ${nodeId}`,
    error,
    limit,
  );
}

/**
 * Due recipients of jobs that have waited for their session longer than `waitMs`. They fail with
 * `notConnected`, or with the pause reason when the session's queue is paused.
 */
export function failLongWaiting(
  db: Db,
  waitMs: number,
  notConnected: string,
  limit = 5000,
): Promise<FailedGroup[]> {
  const error = sql`coalesce((SELECT 'Sending paused: ' || coalesce(s.status_reason, 'paused') FROM wa_sessions s
      WHERE s.session_id = r.session_id AND s.send_paused), ${notConnected})`;
  return failWhere(
    db,
    sql`r.status = 'queued' AND r.due_at <= now() AND r.job_id IN (
          SELECT id FROM message_jobs WHERE waiting_since IS NOT NULL AND waiting_since <= now() - ${ms(waitMs)})`,
    error,
    limit,
  );
}

/**
 * A session can send when a node holds its live lease, it is CONNECTED and not paused. Jobs
 * with due recipients on a session that cannot send start (or keep) their waiting clock; the
 * clock stops as soon as it can send again.
 */
export async function updateWaitingClocks(db: Db): Promise<void> {
  const canSend = sql`EXISTS (SELECT 1 FROM wa_sessions s WHERE s.session_id = j.session_id
      AND s.status = 'CONNECTED' AND NOT s.send_paused AND s.owner_node IS NOT NULL
      AND s.lease_expires_at > now())`;
  await db.execute(
    sql`UPDATE message_jobs j SET waiting_since = now()
        WHERE j.waiting_since IS NULL AND j.status IN ('pending', 'processing', 'scheduled')
          AND NOT ${canSend}
          AND EXISTS (SELECT 1 FROM message_job_recipients r
                      WHERE r.job_id = j.id AND r.status = 'queued' AND r.due_at <= now())`,
  );
  await db.execute(
    sql`UPDATE message_jobs j SET waiting_since = NULL WHERE j.waiting_since IS NOT NULL AND ${canSend}`,
  );
}

export type Receipt = { messageId: string; status: 'delivered' | 'read'; at: Date };

/**
 * Applies a batch of receipts of one session in one statement: sets delivered and read times
 * (a read implies delivered) and bumps the jobs' receipt counters for first-time receipts only.
 */
export async function applyReceipts(db: Db, sessionId: string, receipts: Receipt[]): Promise<void> {
  if (receipts.length === 0) return;
  const ids = receipts.map((r) => r.messageId);
  const reads = receipts.map((r) => r.status === 'read');
  const ats = receipts.map((r) => r.at.toISOString());
  await db.transaction(async (tx) => {
    // Jobs first, then their recipients: the order of the jobs API (delete, retry, which lock
    // the job row first). Recipients first deadlocked with a job being deleted (reliability races).
    await tx.execute(
      sql`SELECT j.id FROM message_jobs j
          WHERE j.id IN (SELECT r.job_id FROM message_job_recipients r
                         WHERE r.session_id = ${sessionId} AND r.message_id = ANY(${sql.param(ids)}::text[]))
          ORDER BY j.id FOR UPDATE OF j`,
    );
    await tx.execute(
      sql`WITH input AS (
          SELECT message_id, bool_or(is_read) AS is_read, min(at) AS at
          FROM unnest(${sql.param(ids)}::text[], ${sql.param(reads)}::boolean[], ${sql.param(ats)}::timestamptz[])
            AS t(message_id, is_read, at)
          GROUP BY message_id
        ), old AS (
          SELECT r.id, r.job_id, r.delivered_at IS NOT NULL AS was_delivered, r.read_at IS NOT NULL AS was_read
          FROM message_job_recipients r JOIN input i ON i.message_id = r.message_id
          WHERE r.session_id = ${sessionId} AND r.message_id IS NOT NULL
          FOR UPDATE OF r
        ), updated AS (
          UPDATE message_job_recipients r
          SET delivered_at = coalesce(r.delivered_at, i.at),
              read_at = CASE WHEN i.is_read THEN coalesce(r.read_at, i.at) ELSE r.read_at END,
              updated_at = now()
          FROM input i, old o
          WHERE o.id = r.id AND i.message_id = r.message_id
          RETURNING r.job_id, NOT o.was_delivered AS new_delivered, (i.is_read AND NOT o.was_read) AS new_read
        ), per_job AS (
          SELECT job_id, count(*) FILTER (WHERE new_delivered)::int AS d, count(*) FILTER (WHERE new_read)::int AS rd
          FROM updated GROUP BY job_id
        )
        UPDATE message_jobs j SET delivered_count = j.delivered_count + p.d, read_count = j.read_count + p.rd
        FROM per_job p WHERE j.id = p.job_id AND (p.d > 0 OR p.rd > 0)`,
    );
  });
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
  limit: number;
  offset: number;
};

export async function listJobs(
  db: Db,
  userId: string,
  f: JobFilter,
): Promise<{ rows: JobRow[]; total: number }> {
  const where = and(
    eq(messageJobs.userId, userId),
    f.from ? gte(messageJobs.createdAt, f.from) : undefined,
    f.to ? lte(messageJobs.createdAt, f.to) : undefined,
    f.statuses ? inArray(messageJobs.status, f.statuses) : undefined,
  );
  const rows = await db
    .select()
    .from(messageJobs)
    .where(where)
    .orderBy(desc(messageJobs.createdAt), desc(messageJobs.id))
    .limit(f.limit)
    .offset(f.offset);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(messageJobs).where(where);
  return { rows, total: count?.n ?? 0 };
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
          SET status = 'queued', error = NULL, due_at = now(), session_id = ${sessionId},
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
          status = CASE WHEN status IN ('completed', 'failed') THEN 'pending' ELSE status END,
          finished_at = NULL, waiting_since = NULL
        WHERE id = ${jobId}`,
  );
}

/** Cancels the job's queued recipients and counts them on the job; returns how many. */
export async function cancelQueued(db: Db, jobId: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients SET status = 'cancelled', updated_at = now()
          WHERE job_id = ${jobId} AND status = 'queued'
          RETURNING 1
        ) SELECT count(*)::int AS n FROM r`,
  );
  const n = rows[0]?.n ?? 0;
  if (n > 0) await db.execute(countersUpdate(jobId, { cancelled: n }));
  return n;
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

export function failSendingOfJob(db: Db, jobId: string, error: string): Promise<FailedGroup[]> {
  return failWhere(db, sql`r.job_id = ${jobId} AND r.status = 'sending'`, error, 100_000);
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
