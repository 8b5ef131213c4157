import { type SQL, sql } from 'drizzle-orm';
import { refundCtes } from '../../credits/credits.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { DISPATCH_MESSAGES } from '../messages.ts';
import type { Claimer } from './claim.ts';
import { forbiddenReason, holdQueued, jobCounters, ownerForbidden } from './rules.ts';

/**
 * The transitions by which recipients fail (transitions.ts lists them all): one being sent, those
 * a condition chooses, those whose delivery is unknown, those their owner may no longer send.
 * Each counts the failure on the job and refunds it with its ledger row in the same statement.
 */

/** `credits`: what the recipients that failed were refunded. */
export type FailedGroup = { jobId: string; userId: string; count: number; credits: number };

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
 * account another node held (`accountId`: this node now holds it). Returns what failed.
 */
export function expire(
  db: Db,
  scope: { jobId: string } | { accountId: string; by: Claimer } | 'leases',
): Promise<FailedGroup[]> {
  const message = DISPATCH_MESSAGES.interrupted;
  if (scope === 'leases')
    return db.transaction((tx) =>
      failWhere(tx, sql`r.status = 'sending' AND r.lease_expires_at < now()`, message, message, 1000),
    );
  if ('jobId' in scope)
    return failWhere(db, sql`r.job_id = ${scope.jobId} AND r.status = 'sending'`, message, message, 100_000);
  const where = sql`r.session_id = ${scope.accountId} AND r.status = 'sending'
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
