import { type SQL, sql } from 'drizzle-orm';
import { refundCtes } from '../../credits/credits.ts';
import { type Db, queryRows } from '../../db/client.ts';
import type { ClaimScope } from '../limits/allowance.ts';
import { DISPATCH_MESSAGES, JOB_MESSAGES } from '../messages.ts';
import { type Claimer, claimCtes, recordAndClaimBatch, type SentMessage } from './claim.ts';
import {
  forbiddenReason,
  holdQueued,
  hotRows,
  jobCounters,
  ownerForbidden,
  PAUSED_DUE,
  reopenJob,
} from './rules.ts';

/**
 * Every change of a recipient's state, and of its job's counters and status, as a named
 * transition (as Oban's engine callbacks: complete_job, cancel_job, snooze_job, retry_job). Each
 * is one statement carrying its side effects: the job's counters, the refund with its ledger row,
 * the auto-pause and the finishing rule (rules.ts). The engine's store, the jobs API, opt-outs,
 * failover and the demo seed compose these; nothing else writes a recipient's status.
 *
 * Lock order everywhere: jobs first (in id order), then their recipients.
 */

/** reassign, the failover of spread jobs' queued recipients, is in failover.ts. */
export { reassign } from './failover.ts';

/** `content`: this recipient's own text when the job is personalised (else null). */
/**
 * `messageId`: the id of an earlier attempt the socket cut before WhatsApp's ack (releaseUnacked):
 * the send goes again under it.
 */
export type ClaimedRecipient = {
  id: number;
  jobId: string;
  chatId: string;
  content: string | null;
  messageId?: string | null;
};
/** `credits`: what the recipients that failed were refunded. */
export type FailedGroup = { jobId: string; userId: string; count: number; credits: number };

type ClaimRow = {
  id: number | string;
  job_id: string;
  chat_id: string;
  content: string | null;
  message_id?: string | null;
};
const toClaimed = (r: ClaimRow): ClaimedRecipient => ({
  id: Number(r.id),
  jobId: r.job_id,
  chatId: r.chat_id,
  content: r.content,
  messageId: r.message_id ?? null,
});

/**
 * claim: up to `limit` due recipients of a session become `sending` with this node's lease,
 * before anything is sent, in `scope` (allowance.ts: the warm-up's and the new-contact caps).
 */
export async function claim(
  db: Db,
  by: Claimer,
  sessionId: string,
  limit: number,
  scope: ClaimScope,
): Promise<ClaimedRecipient[]> {
  const rows = await hotRows<ClaimRow>(
    db,
    `wa_claim_due_recipients_${scope}`,
    sql`WITH ${claimCtes(sessionId, by, limit, scope)}
        SELECT id, job_id, chat_id, content, message_id FROM claimed ORDER BY id`,
  );
  return rows.map(toClaimed);
}

/**
 * recordSent, batched: the sent recipients given become `sent` (with their jobs' counters and the
 * transport's copies), and each session of `claimFor` claims its next due recipient, all in one
 * statement (one round trip per message when unpaced). Returns the claims by session.
 */
export async function recordSent(
  db: Db,
  by: Claimer,
  sent: Array<{ id: number } & SentMessage>,
  claimFor: Array<{ sessionId: string; scope: ClaimScope }>,
): Promise<Map<string, ClaimedRecipient>> {
  const statement = recordAndClaimBatch(
    by,
    {
      ids: sent.map((x) => x.id),
      messageIds: sent.map((x) => x.messageId),
      sentTo: sent.map((x) => x.sentTo ?? null),
      kept: sent.map((x) => x.kept ?? null),
    },
    claimFor.map((c) => c.sessionId),
    claimFor.map((c) => c.scope),
  );
  const rows = await hotRows<ClaimRow & { session_id: string }>(db, 'wa_dispatch_tick', statement);
  return new Map(rows.map((r) => [r.session_id, toClaimed(r)]));
}

/**
 * fail: a recipient this node is sending fails, is counted and refunded; its job pauses itself
 * when more than half of its last 20 outcomes failed (and its queue is held). Only while this
 * node holds the lease: a recipient another node already declared unknown (and refunded) is
 * not counted or refunded twice.
 */
export async function fail(db: Db, by: Claimer, recipientId: number, error: string): Promise<void> {
  await queryRows(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients
          SET status = 'failed', error = ${error}, lease_owner = NULL, lease_expires_at = NULL, failed_at = now(),
              updated_at = now()
          WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${by.nodeId}
          RETURNING job_id, price
        ), counted AS (
          UPDATE message_jobs j SET ${jobCounters({ failed: 1 }, { starts: true, outcome: true })}
          WHERE j.id = (SELECT job_id FROM r)
          RETURNING j.id AS job_id, j.status, j.user_id, (SELECT price FROM r) AS credits
        ), held AS (
          ${holdQueued(sql`SELECT job_id FROM counted WHERE status = 'paused'`)}
        ), ${refundCtes('counted', error)}
        SELECT job_id FROM counted`,
  );
}

/**
 * failWhere: the recipients chosen by `where` (a condition on `r`) fail, are counted on their
 * jobs and refunded one credit each, with the ledger rows, in one statement; up to `limit` of
 * them. Returns, per job, how many failed. A recipient that was counted sent (WhatsApp refused
 * it after the send: a late error status) moves from the sent count to the failed one. Run it in
 * a transaction: the jobs are locked first.
 */
export async function failWhere(
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
  const rows = await queryRows<{ job_id: string; user_id: string; n: number; credits: number | string }>(
    db,
    sql`WITH picked AS (
          SELECT r.id, r.status = 'sent' AS was_sent FROM message_job_recipients r
          WHERE (${where}) AND r.job_id = ANY(${sql.param(jobIds)}::text[])
          ORDER BY r.id LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), failed AS (
          UPDATE message_job_recipients r
          SET status = 'failed', error = ${error}, lease_owner = NULL, lease_expires_at = NULL, failed_at = now(),
              updated_at = now()
          FROM picked WHERE r.id = picked.id
          RETURNING r.id, r.job_id, r.price, picked.was_sent
        ), per_job AS (
          SELECT job_id, count(*)::int AS n, count(*) FILTER (WHERE was_sent)::int AS s,
                 sum(price)::bigint AS credits
          FROM failed GROUP BY job_id
        ), jobs AS (
          UPDATE message_jobs j SET ${jobCounters({ sent: sql`-p.s`, failed: sql`p.n` })}
          FROM per_job p WHERE j.id = p.job_id
          RETURNING j.id AS job_id, j.user_id, p.n, p.credits
        ), ${refundCtes('jobs', note)}
        SELECT job_id, user_id, n, credits FROM jobs`,
  );
  return rows.map((r) => ({
    jobId: r.job_id,
    userId: r.user_id,
    count: Number(r.n),
    credits: Number(r.credits),
  }));
}

/** failWhere, slice by slice, each in its own transaction, until nothing is left. */
async function failAllWhere(db: Db, where: SQL, error: string | SQL, note: string, slice: number) {
  const all: FailedGroup[] = [];
  for (;;) {
    const groups = await db.transaction((tx) => failWhere(tx, where, error, note, slice));
    if (groups.length === 0) return all;
    all.push(...groups);
  }
}

/**
 * expire: sends whose delivery is unknown fail (and are refunded): those whose lease ran out
 * (their node died mid-send), of one job being deleted (`jobId`: every send of it left), or of a
 * session another node held (`sessionId`: this node now holds it). Returns what failed.
 */
export function expire(
  db: Db,
  scope: { jobId: string } | { sessionId: string; by: Claimer } | 'leases',
): Promise<FailedGroup[]> {
  const message = DISPATCH_MESSAGES.interrupted;
  if (scope === 'leases')
    return db.transaction((tx) =>
      failWhere(tx, sql`r.status = 'sending' AND r.lease_expires_at < now()`, message, message, 1000),
    );
  if ('jobId' in scope)
    return failWhere(db, sql`r.job_id = ${scope.jobId} AND r.status = 'sending'`, message, message, 100_000);
  const where = sql`r.session_id = ${scope.sessionId} AND r.status = 'sending'
                    AND r.lease_owner IS DISTINCT FROM ${scope.by.nodeId}`;
  return db.transaction((tx) => failWhere(tx, where, message, message, 1000));
}

/**
 * Queued recipients their owner may no longer send (rules.ts, ownerForbidden): the claim skips
 * them; failForbidden fails them (`userId`: of one account only).
 */
export const forbiddenWaiting = (userId?: string) =>
  sql`r.status = 'queued' AND r.job_id IN (${forbiddenJobs(userId)})`;

/** The ids of the jobs whose owner may no longer send them (of one account, or all). */
const forbiddenJobs = (userId?: string) =>
  sql`SELECT j.id FROM message_jobs j JOIN users u ON u.id = j.user_id
      WHERE ${userId === undefined ? sql`` : sql`u.id = ${userId} AND`} ${ownerForbidden('j', 'u')}`;

/**
 * Some recipient is forbiddenWaiting (the dispatcher's check before failForbidden). The forbidden
 * jobs are found first (OFFSET 0 keeps them apart), and only their queues are probed: planned as
 * one join, every queued recipient's job and owner were read, every second (16 ms with 10,000
 * queued).
 */
export const someForbiddenWaiting = sql`EXISTS (
    SELECT 1 FROM (${forbiddenJobs()} OFFSET 0) f
    WHERE EXISTS (SELECT 1 FROM message_job_recipients r WHERE r.job_id = f.id AND r.status = 'queued'))`;

/** failWhere over every forbidden waiting recipient (of one account, or all), slice by slice. */
export function failForbidden(db: Db, userId?: string): Promise<FailedGroup[]> {
  return failAllWhere(db, forbiddenWaiting(userId), forbiddenReason, DISPATCH_MESSAGES.noLongerAllowed, 5000);
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

/** release: claimed recipients that were never handed to the transport go back in the queue. */
export async function release(db: Db, by: Claimer, recipientIds: number[]): Promise<void> {
  if (recipientIds.length === 0) return;
  await db.execute(
    sql`UPDATE message_job_recipients
        SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0),
            updated_at = now()
        WHERE id = ANY(${sql.param(recipientIds)}::bigint[]) AND status = 'sending' AND lease_owner = ${by.nodeId}`,
  );
}

/**
 * releaseUnacked: a recipient whose message the socket cut before WhatsApp's ack goes back in the
 * queue, not sent and not charged again, keeping the message's id: the next attempt sends it
 * under that id, so that WhatsApp can tell a copy it already took.
 */
export async function releaseUnacked(
  db: Db,
  by: Claimer,
  recipientId: number,
  messageId: string,
): Promise<void> {
  await db.execute(
    sql`UPDATE message_job_recipients
        SET status = 'queued', message_id = ${messageId}, lease_owner = NULL, lease_expires_at = NULL,
            attempts = greatest(attempts - 1, 0), updated_at = now()
        WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${by.nodeId}`,
  );
}

/**
 * requeue: a locked job's failed recipients are queued again on `sessionId` (their credits were
 * reserved by the caller), and the job reopens: its failed count drops, a finished job is pending
 * again, a spread job adds the account. `price`: the credits each was charged again. A paused job's requeued recipients wait for its resume.
 * `only` narrows which failed recipients (the retry's: those a retry may fix). Returns how many.
 */
export async function requeue(
  db: Db,
  jobId: string,
  sessionId: string,
  price: number,
  only: SQL = sql`true`,
): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH r AS (
          UPDATE message_job_recipients
          SET status = 'queued', error = NULL, failed_at = NULL, session_id = ${sessionId}, price = ${price},
              message_id = NULL,
              due_at = CASE WHEN (SELECT status FROM message_jobs WHERE id = ${jobId}) = 'paused'
                            THEN ${PAUSED_DUE} ELSE now() END,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE job_id = ${jobId} AND status = 'failed' AND ${only}
          RETURNING 1
        ), c AS (
          SELECT count(*)::int AS n FROM r
        ), reopened AS (
          UPDATE message_jobs SET failed_count = failed_count - (SELECT n FROM c), session_id = ${sessionId},
            session_ids = CASE WHEN session_ids IS NULL OR ${sessionId} = ANY(session_ids) THEN session_ids
                               ELSE session_ids || ARRAY[${sessionId}]::text[] END,
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
 * sessions that have recipients to send.
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
 */
export async function reschedule(db: Db, jobId: string, at: Date): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`WITH moved AS (
          UPDATE message_jobs SET scheduled_at = ${at.toISOString()}::timestamptz
          WHERE id = ${jobId} AND status = 'scheduled' AND NOT EXISTS (
            SELECT 1 FROM message_job_recipients WHERE job_id = ${jobId} AND status <> 'queued')
          RETURNING id
        ), r AS (
          UPDATE message_job_recipients SET due_at = ${at.toISOString()}::timestamptz, updated_at = now()
          WHERE job_id IN (SELECT id FROM moved) AND status = 'queued'
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

/** After the send: undelivered and its cause, replied, and sent after all (engine/delivery.ts). */
export {
  markNewAccounts,
  noteUndeliveredCause,
  reply,
  sentAfterAll,
  sentAfterAllByCopies,
  undeliver,
} from './delivery.ts';
