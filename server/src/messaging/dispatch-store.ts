import { eq, type SQL, sql } from 'drizzle-orm';
import { refundCtes } from '../credits/credits.ts';
import { type Db, queryRows } from '../db/client.ts';
import { media, messageJobs, waSessions } from '../db/schema.ts';
import type { OutgoingMessage } from '../transport/types.ts';
import { outgoingMessage } from './compose.ts';
import { DISPATCH_MESSAGES, JOB_MESSAGES } from './messages.ts';
import { countersUpdate, type FailedGroup, failAndRefundWhere, hotRows, ms } from './recipient-sql.ts';

/**
 * The engine's data source (as listmonk's manager depends on its DataSource): every statement
 * the dispatcher runs, each carrying its own side effects. An operation that fails recipients
 * refunds them and writes their ledger rows in the same statement; nothing outside the store
 * decides a refund.
 */
export interface DispatchStore {
  /** Claims up to `limit` due recipients of a session: `sending` with a lease before anything is sent. */
  claim(sessionId: string, limit: number): Promise<ClaimedRecipient[]>;
  /** Milliseconds until the session's next queued recipient is due (0 when one is due now), or null. */
  msUntilNextDue(sessionId: string): Promise<number | null>;
  /**
   * Records a sent recipient with its job's counters; with `claimNextOf`, claims that session's
   * next due recipient in the same statement (one round trip per message when unpaced).
   */
  recordSent(recipientId: number, messageId: string, claimNextOf?: string): Promise<ClaimedRecipient | null>;
  /** Fails a recipient this node is sending, counts it and refunds it. */
  fail(recipientId: number, error: string): Promise<void>;
  /** Puts claimed recipients that were never handed to the transport back in the queue. */
  release(recipientIds: number[]): Promise<void>;
  /** Pauses a session's queue (error 463, CAPPED) with the reason shown to the user. */
  pauseSession(sessionId: string, reason: string): Promise<void>;
  /**
   * Fails (and refunds) recipients of a session left `sending` by another node: this node now
   * holds the session, so their delivery is unknown. Returns what failed, batch by batch.
   */
  failForeignClaims(sessionId: string): Promise<FailedGroup[]>;
  /** Fails (and refunds) sends whose lease ran out: their node died mid-send. */
  failExpiredLeases(): Promise<FailedGroup[]>;
  /** Starts and stops the waiting clocks of jobs whose session cannot send. */
  updateWaitingClocks(): Promise<void>;
  /** Fails (and refunds) due recipients of jobs that waited longer than `waitMs` for their session. */
  failLongWaiting(waitMs: number): Promise<FailedGroup[]>;
  /** Fails (and refunds) queued recipients their owner may no longer send (see forbiddenWaiting). */
  failForbidden(): Promise<FailedGroup[]>;
  /** Applies a batch of delivery and read receipts of one session. */
  applyReceipts(sessionId: string, receipts: Receipt[]): Promise<void>;
  /** The message to send for a job, rebuilt from its row (null when it cannot be). */
  loadMessage(jobId: string): Promise<OutgoingMessage | null>;
}

export type ClaimedRecipient = { id: number; jobId: string; chatId: string };
export type Receipt = { messageId: string; status: 'delivered' | 'read'; at: Date };
export type { FailedGroup };

/** How long a recipient stays `sending` before another node may declare its delivery unknown. */
export function recipientLeaseMs(config: { sessionLeaseMs: number }): number {
  return Math.max(config.sessionLeaseMs * 2, 60_000);
}

/**
 * Queued recipients their owner may no longer send: the account is disabled, or they are
 * individual sends and the bulk flag was revoked. The claim skips them; the admin's change and
 * the sweep fail and refund them (`userId`: one account only).
 */
export const forbiddenWaiting = (userId?: string) =>
  sql`r.status = 'queued' AND r.job_id IN (
        SELECT j.id FROM message_jobs j JOIN users u ON u.id = j.user_id
        WHERE ${userId === undefined ? sql`` : sql`u.id = ${userId} AND`}
          (u.disabled OR (j.audience = 'individuals' AND NOT u.is_bulk_messaging_enabled)))`;

/** Why such a recipient failed, read from its owner's row. */
const forbiddenReason = sql`CASE WHEN (SELECT u.disabled FROM message_jobs j JOIN users u ON u.id = j.user_id
    WHERE j.id = r.job_id) THEN ${JOB_MESSAGES.accountDisabled} ELSE ${JOB_MESSAGES.bulkDisabled} END`;

/** Fails and refunds every forbidden waiting recipient (of one account, or all), slice by slice. */
export async function failForbiddenWaitingIn(db: Db, userId?: string): Promise<FailedGroup[]> {
  const all: FailedGroup[] = [];
  for (;;) {
    const groups = await db.transaction((tx) =>
      failAndRefundWhere(
        tx,
        forbiddenWaiting(userId),
        forbiddenReason,
        DISPATCH_MESSAGES.noLongerAllowed,
        5000,
      ),
    );
    if (groups.length === 0) return all;
    all.push(...groups);
  }
}

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
            -- The owner's state is read at every claim: a disabled account, or individuals after the
            -- bulk flag was revoked, are not sent (the admin's change fails and refunds them).
            AND NOT EXISTS (
              SELECT 1 FROM message_jobs j JOIN users u ON u.id = j.user_id
              WHERE j.id = r.job_id
                AND (u.disabled OR (j.audience = 'individuals' AND NOT u.is_bulk_messaging_enabled)))
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

/** The store over the database, for one node (`nodeId` is the owner written in leases). */
export function createDispatchStore(db: Db, nodeId: string, leaseMs: number): DispatchStore {
  const sentUpdate = (recipientId: number, messageId: string) =>
    sql`UPDATE message_job_recipients
        SET status = 'sent', message_id = ${messageId}, sent_at = now(), error = NULL,
            lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${nodeId}
        RETURNING job_id`;

  return {
    async claim(sessionId, limit) {
      const rows = await hotRows<ClaimRow>(
        db,
        'wa_claim_due_recipients',
        sql`WITH ${claimCtes(sessionId, nodeId, limit, leaseMs)}
            SELECT id, job_id, chat_id FROM claimed ORDER BY id`,
      );
      return toClaimed(rows);
    },

    async msUntilNextDue(sessionId) {
      const [row] = await hotRows<{ ms: number | string | null }>(
        db,
        'wa_ms_until_next_due',
        sql`SELECT greatest(0, extract(epoch FROM min(due_at) - now()) * 1000)::float8 AS ms
            FROM message_job_recipients WHERE session_id = ${sessionId} AND status = 'queued'`,
      );
      return row?.ms == null ? null : Number(row.ms);
    },

    async recordSent(recipientId, messageId, claimNextOf) {
      if (claimNextOf === undefined) {
        await hotRows(
          db,
          'wa_record_sent',
          sql`WITH r AS (${sentUpdate(recipientId, messageId)})
              ${countersUpdate(sql`(SELECT job_id FROM r)`, { sent: 1 })}
              RETURNING j.id`,
        );
        return null;
      }
      const rows = await hotRows<ClaimRow & { kind: 'recorded' | 'claimed' }>(
        db,
        'wa_record_sent_claim_next',
        sql`WITH r AS (${sentUpdate(recipientId, messageId)}), counted AS (
              ${countersUpdate(sql`(SELECT job_id FROM r)`, { sent: 1 })}
              RETURNING j.id
            ), ${claimCtes(claimNextOf, nodeId, 1, leaseMs, sql`SELECT job_id FROM r`)}
            SELECT 'recorded' AS kind, id::text AS id, NULL AS job_id, NULL AS chat_id FROM counted
            UNION ALL
            SELECT 'claimed' AS kind, id::text, job_id, chat_id FROM claimed`,
      );
      const claimed = rows.filter((r) => r.kind === 'claimed');
      return claimed.length > 0 ? toClaimed(claimed)[0]! : null;
    },

    async fail(recipientId, error) {
      // Only while this node holds the lease: a recipient another node already declared unknown
      // (and refunded) is not counted or refunded twice.
      await queryRows(
        db,
        sql`WITH r AS (
              UPDATE message_job_recipients
              SET status = 'failed', error = ${error}, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
              WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${nodeId}
              RETURNING job_id
            ), counted AS (
              ${countersUpdate(sql`(SELECT job_id FROM r)`, { failed: 1 })}
              RETURNING j.id AS job_id, j.user_id, 1 AS n
            ), ${refundCtes('counted', error)}
            SELECT job_id FROM counted`,
      );
    },

    async release(recipientIds) {
      if (recipientIds.length === 0) return;
      await db.execute(
        sql`UPDATE message_job_recipients
            SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0),
                updated_at = now()
            WHERE id = ANY(${sql.param(recipientIds)}::bigint[]) AND status = 'sending' AND lease_owner = ${nodeId}`,
      );
    },

    async pauseSession(sessionId, reason) {
      await db
        .update(waSessions)
        .set({ sendPaused: true, statusReason: reason, updatedAt: new Date() })
        .where(eq(waSessions.sessionId, sessionId));
    },

    failForeignClaims(sessionId) {
      return db.transaction((tx) =>
        failAndRefundWhere(
          tx,
          sql`r.session_id = ${sessionId} AND r.status = 'sending' AND r.lease_owner IS DISTINCT FROM ${nodeId}`,
          DISPATCH_MESSAGES.interrupted,
          DISPATCH_MESSAGES.interrupted,
          1000,
        ),
      );
    },

    failExpiredLeases() {
      return db.transaction((tx) =>
        failAndRefundWhere(
          tx,
          sql`r.status = 'sending' AND r.lease_expires_at < now()`,
          DISPATCH_MESSAGES.interrupted,
          DISPATCH_MESSAGES.interrupted,
          1000,
        ),
      );
    },

    async updateWaitingClocks() {
      // A session can send when a node holds its live lease, it is CONNECTED and not paused. Jobs
      // with due recipients on a session that cannot send start (or keep) their waiting clock; the
      // clock stops as soon as it can send again.
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
    },

    failLongWaiting(waitMs) {
      // The pause reason when the session's queue is paused, else 'Session is not connected'.
      const error = sql`coalesce((SELECT 'Sending paused: ' || coalesce(s.status_reason, 'paused') FROM wa_sessions s
          WHERE s.session_id = r.session_id AND s.send_paused), ${DISPATCH_MESSAGES.notConnected})`;
      return db.transaction((tx) =>
        failAndRefundWhere(
          tx,
          sql`r.status = 'queued' AND r.due_at <= now() AND r.job_id IN (
                SELECT id FROM message_jobs WHERE waiting_since IS NOT NULL AND waiting_since <= now() - ${ms(waitMs)})`,
          error,
          DISPATCH_MESSAGES.notConnected,
          5000,
        ),
      );
    },

    failForbidden() {
      return failForbiddenWaitingIn(db);
    },

    async applyReceipts(sessionId, receipts) {
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
    },

    async loadMessage(jobId) {
      const [job] = await db.select().from(messageJobs).where(eq(messageJobs.id, jobId));
      if (!job) return null;
      const [file] = job.mediaId ? await db.select().from(media).where(eq(media.id, job.mediaId)) : [];
      return outgoingMessage(job, file);
    },
  };
}
