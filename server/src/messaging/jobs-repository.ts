import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { refundCtes } from '../credits/credits.ts';
import { type Db, queryRows } from '../db/client.ts';
import { media, messageJobRecipients, messageJobs } from '../db/schema.ts';
import { JOB_MESSAGES } from './messages.ts';
import { countersUpdate, type FailedGroup, failAndRefundWhere } from './recipient-sql.ts';

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

/** One page of a user's jobs, newest first (by keyset after `after`, else by offset). */
export async function listJobs(db: Db, userId: string, f: JobFilter): Promise<JobRow[]> {
  const conditions = sql`${rangeWhere(userId, f)}
    ${f.statuses ? sql`AND j.status = ANY(${sql.param(f.statuses)}::text[])` : sql``}
    ${f.after ? sql`AND (j.created_at, j.id) < (${f.after.createdAt.toISOString()}::timestamptz, ${f.after.id})` : sql``}`;
  const ids = await queryRows<{ id: string }>(
    db,
    sql`SELECT j.id FROM message_jobs j WHERE ${conditions}
        ORDER BY j.created_at DESC, j.id DESC
        LIMIT ${f.limit} OFFSET ${f.after ? 0 : f.offset}`,
  );
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

/** Counts of the user's jobs in the range and search, by status, with their recipients: one aggregate. */
export async function summariseJobs(
  db: Db,
  userId: string,
  f: Omit<JobFilter, 'limit' | 'offset' | 'statuses' | 'after'>,
): Promise<JobsSummaryRow> {
  const [row] = await queryRows<Record<string, number | string | null>>(
    db,
    sql`SELECT count(*)::int AS jobs,
               count(*) FILTER (WHERE j.status = 'pending')::int AS pending,
               count(*) FILTER (WHERE j.status = 'scheduled')::int AS scheduled,
               count(*) FILTER (WHERE j.status = 'processing')::int AS processing,
               count(*) FILTER (WHERE j.status = 'paused')::int AS paused,
               count(*) FILTER (WHERE j.status = 'completed')::int AS completed,
               count(*) FILTER (WHERE j.status = 'failed')::int AS failed_jobs,
               coalesce(sum(j.total), 0)::bigint AS recipients,
               coalesce(sum(j.sent_count), 0)::bigint AS sent,
               coalesce(sum(j.failed_count), 0)::bigint AS failed
        FROM message_jobs j WHERE ${rangeWhere(userId, f)}`,
  );
  const n = (k: string) => Number(row?.[k] ?? 0);
  return {
    jobs: n('jobs'),
    byStatus: {
      pending: n('pending'),
      scheduled: n('scheduled'),
      processing: n('processing'),
      paused: n('paused'),
      completed: n('completed'),
      failed: n('failed_jobs'),
    },
    recipients: n('recipients'),
    sent: n('sent'),
    failed: n('failed'),
  };
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
