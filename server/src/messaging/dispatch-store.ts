import { eq, type SQL, sql } from 'drizzle-orm';
import { batcher } from '../batch.ts';
import { refundCtes } from '../credits/credits.ts';
import { type Db, queryRows } from '../db/client.ts';
import { media, messageJobs, waSessions } from '../db/schema.ts';
import type { OutgoingMessage } from '../transport/types.ts';
import { outgoingMessage } from './compose.ts';
import { DISPATCH_MESSAGES, JOB_MESSAGES } from './messages.ts';
import { countSentSince, findPolicy, setHold } from './policy-repository.ts';
import {
  AUTO_PAUSE_WINDOW,
  countersUpdate,
  type FailedGroup,
  failAndRefundWhere,
  holdPausedCte,
  hotRows,
  ms,
} from './recipient-sql.ts';
import type { PolicySource } from './send-policy.ts';

/**
 * The engine's data source (as listmonk's manager depends on its DataSource): every statement
 * the dispatcher runs, each carrying its own side effects. An operation that fails recipients
 * refunds them and writes their ledger rows in the same statement; nothing outside the store
 * decides a refund.
 */
export interface DispatchStore extends PolicySource {
  /**
   * Claims up to `limit` due recipients of a session: `sending` with a lease before anything is
   * sent. `groupsOnly`: only group chats (the warm-up's one-to-one cap is reached).
   */
  claim(sessionId: string, limit: number, groupsOnly?: boolean): Promise<ClaimedRecipient[]>;
  /**
   * For each of the given sessions whose queue is not paused and holds a queued recipient: the
   * milliseconds until its next one is due (0 when due now). One statement for a node's sessions,
   * so that idle sessions cost nothing per session.
   */
  msUntilNextDue(sessionIds: string[]): Promise<Map<string, number>>;
  /**
   * Records a sent recipient with its job's counters, and keeps the transport's copy of the
   * message (`sent.kept`, wa_sent_messages); with `claimNextOf`, claims that session's next due
   * recipient in the same statement (one round trip per message when unpaced).
   */
  recordSent(
    recipientId: number,
    sent: SentMessage,
    claimNextOf?: string,
    groupsOnly?: boolean,
  ): Promise<ClaimedRecipient | null>;
  /**
   * Fails a recipient this node is sending, counts it and refunds it; pauses its job when more
   * than half of its last 20 outcomes failed (the auto-pause).
   */
  fail(recipientId: number, error: string): Promise<void>;
  /**
   * WhatsApp refused a message after it was recorded sent (a later error status for its id):
   * the recipient fails with the reason, moves from the job's sent count to its failed count and
   * is refunded, in one transaction. False when no sent recipient has that id (yet).
   */
  failSent(sessionId: string, messageId: string, reason: string): Promise<boolean>;
  /** Puts claimed recipients that were never handed to the transport back in the queue. */
  release(recipientIds: number[]): Promise<void>;
  /**
   * Pauses the session's one-to-one sends (error 463, CAPPED) with the reason shown to the user,
   * until `until` when WhatsApp said (null: until the user resumes). Group sends go on.
   */
  pauseSession(sessionId: string, reason: string, until: Date | null): Promise<void>;
  /** Ends the pauses whose time has come (their recipients are claimed again). Returns their sessions. */
  liftEndedPauses(): Promise<string[]>;
  /**
   * Fails (and refunds) recipients of a session left `sending` by another node: this node now
   * holds the session, so their delivery is unknown. Returns what failed, batch by batch.
   */
  failForeignClaims(sessionId: string): Promise<FailedGroup[]>;
  /** Fails (and refunds) sends whose lease ran out: their node died mid-send. */
  failExpiredLeases(): Promise<FailedGroup[]>;
  /** Starts and stops the waiting clocks of jobs whose session cannot send. */
  updateWaitingClocks(): Promise<void>;
  /**
   * Jobs spread over several accounts: the queued recipients of an account that has been down
   * (disconnected, logged out, banned) for `afterMs`, or whose new chats WhatsApp restricts for
   * longer than that, move to the job's healthy accounts, in turn. Returns the accounts that got
   * recipients (to wake them).
   */
  moveFromDownAccounts(afterMs: number): Promise<string[]>;
  /**
   * Which of the sweep's operations have anything to do now, asked in one statement: a node runs
   * only those, so an idle node's sweep is one statement whatever the number of its accounts.
   */
  sweepsDue(waitMs: number): Promise<SweepsDue>;
  /** Fails (and refunds) due recipients of jobs that waited longer than `waitMs` for their session. */
  failLongWaiting(waitMs: number): Promise<FailedGroup[]>;
  /** Fails (and refunds) queued recipients their owner may no longer send (see forbiddenWaiting). */
  failForbidden(): Promise<FailedGroup[]>;
  /**
   * Applies a batch of delivery and read receipts of any sessions of this node, in one
   * transaction. Returns those whose message id no recipient has (yet: a receipt can arrive
   * before the send is recorded).
   */
  applyReceipts(receipts: SessionReceipt[]): Promise<SessionReceipt[]>;
  /** The message to send for a job, rebuilt from its row (null when it cannot be). */
  loadMessage(jobId: string): Promise<OutgoingMessage | null>;
}

/** `content`: this recipient's own text when the job is personalised (else null). */
export type ClaimedRecipient = { id: number; jobId: string; chatId: string; content: string | null };
/** A message the transport sent: its id, and the JID it went to when WhatsApp named another for the number. */
/** A send the transport finished: `kept` is its copy of the message (SendResult.kept). */
export type SentMessage = { messageId: string; sentTo?: string | null; kept?: string };
export type Receipt = { messageId: string; status: 'delivered' | 'read'; at: Date };
export type SessionReceipt = Receipt & { sessionId: string };
/** The sweep's operations that may find work (a condition seen true here can be gone when it runs). */
export type SweepsDue = {
  expiredLeases: boolean;
  endedPauses: boolean;
  spreadJobs: boolean;
  waitingClocks: boolean;
  longWaiting: boolean;
  forbidden: boolean;
};
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

type ClaimRow = { id: number | string; job_id: string; chat_id: string; content: string | null };
const toClaimed = (rows: ClaimRow[]): ClaimedRecipient[] =>
  rows.map((r) => ({ id: Number(r.id), jobId: r.job_id, chatId: r.chat_id, content: r.content }));

/**
 * The session of recipient `r` has its new one-to-one chats restricted now (463, CAPPED) and `r`
 * is a one-to-one chat: it waits. Group recipients go on.
 */
const heldByPause = (r: SQL, sessionId: SQL) => sql`(${r}.chat_id LIKE '%@s.whatsapp.net' AND EXISTS (
      SELECT 1 FROM wa_sessions s WHERE s.session_id = ${sessionId} AND ${pausedNow(sql.raw('s'))}))`;

/** A session row `s` whose one-to-one sends are paused now. */
const pausedNow = (s: SQL) =>
  sql`(${s}.send_paused AND (${s}.send_paused_until IS NULL OR ${s}.send_paused_until > now()))`;

/**
 * The owner's state is read at every claim: a disabled account, or individuals after the bulk
 * flag was revoked, are not sent (the admin's change fails and refunds them). `r` is the
 * recipient's alias in the claim.
 */
const ownerMaySend = (r: SQL) => sql`NOT EXISTS (
      SELECT 1 FROM message_jobs j JOIN users u ON u.id = j.user_id
      WHERE j.id = ${r}.job_id
        AND (u.disabled OR (j.audience = 'individuals' AND NOT u.is_bulk_messaging_enabled)))`;

/**
 * The claim as CTEs (`due`, `claimed`, `started`), to run alone or after recording an outcome.
 * `groupsOnly` leaves one-to-one chats queued (the warm-up cap of the account is reached).
 */
function claimCtes(sessionId: string, nodeId: string, limit: number, leaseMs: number, groupsOnly: boolean) {
  return sql`due AS (
          SELECT r.id FROM message_job_recipients r
          WHERE r.session_id = ${sessionId} AND r.status = 'queued' AND r.due_at <= now()
            AND NOT ${heldByPause(sql.raw('r'), sql`${sessionId}`)}
            ${groupsOnly ? sql`AND r.chat_id LIKE '%@g.us'` : sql``}
            AND ${ownerMaySend(sql.raw('r'))}
          ORDER BY r.due_at, r.id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE message_job_recipients r
          SET status = 'sending', lease_owner = ${nodeId}, lease_expires_at = now() + ${ms(leaseMs)},
              attempts = r.attempts + 1, updated_at = now()
          FROM due WHERE r.id = due.id
          RETURNING r.id, r.job_id, r.chat_id, r.content
        ), started AS (
          -- Skips a job row another transaction holds (a delete, a retry, which lock the job before
          -- its recipients): waiting here, with recipients locked, could deadlock with them. The
          -- first recorded outcome then marks the job processing (countersUpdate).
          UPDATE message_jobs j
          SET status = 'processing', started_at = coalesce(j.started_at, now()), waiting_since = NULL
          WHERE j.id IN (
            SELECT j2.id FROM message_jobs j2
            WHERE j2.id IN (SELECT job_id FROM claimed) AND j2.status IN ('pending', 'scheduled')
            FOR NO KEY UPDATE SKIP LOCKED)
          RETURNING j.id
        )`;
}

/**
 * One statement per tick for every session of this node (batched ticks): records the sent
 * recipients given (with their jobs' counters) and claims the next due recipient of each session
 * in `claimFor`, one per session. The claim cannot see what the same statement records (one
 * snapshot), and a job row the record updates is left to it (`started` skips those jobs).
 */
function recordAndClaimBatch(
  nodeId: string,
  leaseMs: number,
  sent: { ids: number[]; messageIds: string[]; sentTo: Array<string | null>; kept: Array<string | null> },
  claimFor: string[],
  groupsOnly: boolean[],
) {
  return sql`WITH input AS (
          SELECT * FROM unnest(${sql.param(sent.ids)}::bigint[], ${sql.param(sent.messageIds)}::text[],
                               ${sql.param(sent.sentTo)}::text[], ${sql.param(sent.kept)}::text[])
                        AS t(id, message_id, sent_to, kept)
        ), locked AS MATERIALIZED (
          -- The jobs of the recorded sends first, in id order, as receipts and the jobs API lock
          -- them: updating several jobs in the statement's own order deadlocked with a receipt
          -- batch. The record (r) and the claim (want) both ask for this CTE's count, an InitPlan
          -- run once before either reads a row: every job lock is held before any recipient row
          -- is locked, and nothing waits after that (the claim skips locked rows). One round trip.
          -- NO KEY UPDATE, the lock the counters' update takes anyway: it waits for another tick
          -- and for the jobs API (FOR UPDATE), not for a receipt batch (KEY SHARE).
          SELECT j.id FROM message_jobs j
          WHERE j.id IN (SELECT q.job_id FROM message_job_recipients q JOIN input i ON q.id = i.id)
          ORDER BY j.id
          FOR NO KEY UPDATE OF j
        ), r AS (
          UPDATE message_job_recipients m
          SET status = 'sent', message_id = i.message_id, sent_at = now(), error = NULL,
              sent_to = CASE WHEN i.sent_to IS DISTINCT FROM m.chat_id THEN i.sent_to END,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          FROM input i
          WHERE m.id = i.id AND m.status = 'sending' AND m.lease_owner = ${nodeId}
            AND (SELECT count(*) FROM locked) >= 0
          RETURNING m.job_id
        ), per_job AS (
          SELECT job_id, count(*)::int AS n FROM r GROUP BY job_id
        ), counted AS (
          UPDATE message_jobs j
          SET sent_count = j.sent_count + p.n,
              recent_failures = (j.recent_failures << least(p.n, ${AUTO_PAUSE_WINDOW})) & ${(1 << AUTO_PAUSE_WINDOW) - 1},
              status = CASE WHEN j.sent_count + p.n + j.failed_count + j.cancelled_count >= j.total
                              THEN (CASE WHEN j.failed_count > 0 THEN 'failed' ELSE 'completed' END)
                            WHEN j.status IN ('pending', 'scheduled') THEN 'processing'
                            ELSE j.status END,
              started_at = coalesce(j.started_at, now()),
              finished_at = CASE WHEN j.sent_count + p.n + j.failed_count + j.cancelled_count >= j.total
                                 THEN now() ELSE j.finished_at END
          FROM per_job p WHERE j.id = p.job_id
          RETURNING j.id
        ), kept AS (
          -- The transport's copy of each message (Baileys answers retry requests from it; the
          -- simulator's outbox), in the send's own statement rather than one more per send. Kept
          -- even when the record finds the recipient no longer this node's: the message was sent.
          -- A session deleted meanwhile keeps nothing (its rows would be deleted with it).
          INSERT INTO wa_sent_messages (session_id, message_id, chat_id, message)
          SELECT q.session_id, i.message_id, coalesce(i.sent_to, q.chat_id), i.kept
          FROM input i JOIN message_job_recipients q ON q.id = i.id
          WHERE i.kept IS NOT NULL
            AND EXISTS (SELECT 1 FROM wa_sessions s WHERE s.session_id = q.session_id)
          ON CONFLICT DO NOTHING
          RETURNING 1
        ), want AS (
          SELECT * FROM unnest(${sql.param(claimFor)}::text[], ${sql.param(groupsOnly)}::boolean[]) AS w(session_id, groups_only)
          WHERE (SELECT count(*) FROM locked) >= 0
        ), due AS (
          SELECT x.id FROM want w CROSS JOIN LATERAL (
            SELECT q.id FROM message_job_recipients q
            WHERE q.session_id = w.session_id AND q.status = 'queued' AND q.due_at <= now()
              AND NOT ${heldByPause(sql.raw('q'), sql.raw('w.session_id'))}
              AND (NOT w.groups_only OR q.chat_id LIKE '%@g.us')
              AND ${ownerMaySend(sql.raw('q'))}
            ORDER BY q.due_at, q.id
            LIMIT 1
            FOR UPDATE SKIP LOCKED
          ) x
        ), claimed AS (
          UPDATE message_job_recipients q
          SET status = 'sending', lease_owner = ${nodeId}, lease_expires_at = now() + ${ms(leaseMs)},
              attempts = q.attempts + 1, updated_at = now()
          FROM due WHERE q.id = due.id
          RETURNING q.id, q.job_id, q.chat_id, q.content, q.session_id
        ), started AS (
          -- As in claimCtes: a job row another transaction holds is skipped, and so is one this
          -- statement already updates (counted); its first outcome marks it processing.
          UPDATE message_jobs j
          SET status = 'processing', started_at = coalesce(j.started_at, now()), waiting_since = NULL
          WHERE j.id IN (
            SELECT j2.id FROM message_jobs j2
            WHERE j2.id IN (SELECT job_id FROM claimed) AND j2.status IN ('pending', 'scheduled')
              AND j2.id NOT IN (SELECT job_id FROM per_job)
            FOR NO KEY UPDATE SKIP LOCKED)
          RETURNING j.id
        )
        SELECT id::text AS id, job_id, chat_id, content, session_id FROM claimed`;
}

/** Session `sessionId` can send now: CONNECTED, and a node holds its live lease. */
const canSend = (sessionId: SQL) => sql`EXISTS (SELECT 1 FROM wa_sessions s WHERE s.session_id = ${sessionId}
    AND s.status = 'CONNECTED' AND s.owner_node IS NOT NULL AND s.lease_expires_at > now())`;

/**
 * Job `j` has due recipients on an account that cannot send (each recipient's own account counts:
 * a job may be spread over several). Recipients held by WhatsApp's restriction of new chats (463,
 * CAPPED) wait without a clock: they resume with it (DECISIONS.md).
 */
const waitsOnDownAccount = sql`EXISTS (
    SELECT 1 FROM unnest(coalesce(j.session_ids, ARRAY[j.session_id])) AS a(session_id)
    WHERE NOT ${canSend(sql.raw('a.session_id'))}
      AND EXISTS (SELECT 1 FROM message_job_recipients r
                  WHERE r.session_id = a.session_id AND r.job_id = j.id
                    AND r.status = 'queued' AND r.due_at <= now()))`;

/**
 * The failover of jobs spread over accounts (FAILOVER_AFTER_MS), up to `limit` recipients per
 * statement. An account is down since its status last changed (or, still marked CONNECTED,
 * since its lease ran out); one whose one-to-one chats are restricted for longer than the
 * threshold leaves too. Targets: the job's accounts, of the job's user, that can send and are
 * not restricted, in the job's order. Only `queued` rows are locked and moved (SKIP LOCKED: a
 * row a claim holds is being sent by its account), so a recipient is never sent twice.
 */
function failoverStatement(afterMs: number, limit: number) {
  return sql`WITH spread AS (
          SELECT j.id, j.user_id, j.session_ids FROM message_jobs j
          WHERE j.session_ids IS NOT NULL AND j.status IN ('pending', 'processing', 'scheduled')
        ), health AS (
          SELECT s.session_id, s.user_id,
            (s.status = 'CONNECTED' AND s.desired_state = 'active' AND s.owner_node IS NOT NULL
              AND s.lease_expires_at > now()) AS up,
            ${pausedNow(sql.raw('s'))} AS restricted,
            (${pausedNow(sql.raw('s'))} AND (s.send_paused_until IS NULL OR s.send_paused_until > now() + ${ms(afterMs)}))
              AS restricted_long,
            CASE WHEN s.status <> 'CONNECTED' OR s.desired_state = 'stopped' THEN s.status_changed_at
                 ELSE coalesce(s.lease_expires_at, s.status_changed_at) END AS down_since
          FROM wa_sessions s
          WHERE s.session_id IN (SELECT unnest(session_ids) FROM spread)
        ), leaving AS (
          SELECT t.session_id FROM (SELECT DISTINCT unnest(session_ids) AS session_id FROM spread) t
          LEFT JOIN health h ON h.session_id = t.session_id
          WHERE h.session_id IS NULL OR h.restricted_long
             OR (NOT h.up AND h.down_since <= now() - ${ms(afterMs)})
        ), targets AS (
          SELECT sp.id AS job_id, array_agg(h.session_id ORDER BY a.ord) AS ids
          FROM spread sp
          CROSS JOIN LATERAL unnest(sp.session_ids) WITH ORDINALITY AS a(session_id, ord)
          JOIN health h ON h.session_id = a.session_id AND h.user_id = sp.user_id AND h.up AND NOT h.restricted
          GROUP BY sp.id
        ), picked AS (
          SELECT r.id, r.job_id FROM message_job_recipients r
          WHERE r.session_id IN (SELECT session_id FROM leaving) AND r.status = 'queued'
            AND r.job_id IN (SELECT job_id FROM targets)
          ORDER BY r.id
          LIMIT ${limit}
          FOR UPDATE OF r SKIP LOCKED
        ), numbered AS (
          SELECT p.id, tg.ids[(row_number() OVER (PARTITION BY p.job_id ORDER BY p.id) - 1) % cardinality(tg.ids) + 1] AS to_session
          FROM picked p JOIN targets tg ON tg.job_id = p.job_id
        )
        UPDATE message_job_recipients r SET session_id = n.to_session, updated_at = now()
        FROM numbered n WHERE r.id = n.id AND r.status = 'queued'
        RETURNING r.session_id`;
}

/** The store over the database, for one node (`nodeId` is the owner written in leases). */
export function createDispatchStore(db: Db, nodeId: string, leaseMs: number): DispatchStore {
  type TickCall = { sent?: { id: number } & SentMessage; claimFor?: string; groupsOnly?: boolean };
  const runTick = async (calls: TickCall[]): Promise<Array<ClaimedRecipient | null>> => {
    const sent = calls.flatMap((c) => (c.sent ? [c.sent] : []));
    const claiming = calls.filter((c) => c.claimFor);
    const statement = recordAndClaimBatch(
      nodeId,
      leaseMs,
      {
        ids: sent.map((x) => x.id),
        messageIds: sent.map((x) => x.messageId),
        sentTo: sent.map((x) => x.sentTo ?? null),
        kept: sent.map((x) => x.kept ?? null),
      },
      claiming.map((c) => c.claimFor!),
      claiming.map((c) => c.groupsOnly === true),
    );
    const rows = await hotRows<ClaimRow & { session_id: string }>(db, 'wa_dispatch_tick', statement);
    const bySession = new Map(rows.map((r) => [r.session_id, toClaimed([r])[0]!]));
    return calls.map((c) => (c.claimFor ? (bySession.get(c.claimFor) ?? null) : null));
  };
  // Every session loop's "record what I sent, claim my next" of one tick, in one statement.
  // A failed statement changed nothing: each call is tried alone, so that one session's fault (a
  // deadlock, a session deleted between the check and the insert of its kept message) does not
  // leave every other session's sends unrecorded. Alone, a call whose kept message cannot be
  // stored is recorded without it.
  const tick = batcher<TickCall, ClaimedRecipient | null | Error>(
    async (calls) => {
      try {
        return await runTick(calls);
      } catch (batchErr) {
        return Promise.all(
          calls.map(async (c) => {
            try {
              if (calls.length === 1) throw batchErr;
              return (await runTick([c]))[0] ?? null;
            } catch (err) {
              if (!c.sent?.kept) return err as Error;
              return runTick([{ ...c, sent: { ...c.sent, kept: undefined } }]).then(
                ([one]) => one ?? null,
                (e: Error) => e,
              );
            }
          }),
        );
      }
    },
    // One claim per session per statement: two for one session would be handed the same row.
    (call) => call.claimFor,
    // Three ticks at once: a session loop has one call out at a time, so two never share a
    // session; all lock their jobs in id order first (locked), and claims skip locked rows.
    // 50 sessions x 200 on PostgreSQL, once receipts no longer held the jobs (medians of three
    // rounds): 2 in flight 4,912/s, 3 5,459 and 5,219/s, 4 4,218/s.
    3,
  );
  const ticked = async (call: TickCall) => {
    const out = await tick(call);
    if (out instanceof Error) throw out;
    return out;
  };

  return {
    claim(sessionId, limit, groupsOnly = false) {
      if (limit === 1)
        return ticked({ claimFor: sessionId, groupsOnly }).then((next) => (next ? [next] : []));
      return hotRows<ClaimRow>(
        db,
        groupsOnly ? 'wa_claim_due_group_recipients' : 'wa_claim_due_recipients',
        sql`WITH ${claimCtes(sessionId, nodeId, limit, leaseMs, groupsOnly)}
            SELECT id, job_id, chat_id, content FROM claimed ORDER BY id`,
      ).then(toClaimed);
    },

    async msUntilNextDue(sessionIds) {
      if (sessionIds.length === 0) return new Map();
      // One probe of the due index per session (min over the partial index is its first entry).
      // A session whose one-to-one sends are paused: its first group recipient (a second probe,
      // only then), or the pause's end for the others (waking early costs one empty claim).
      const rows = await hotRows<{ session_id: string; ms: number | string }>(
        db,
        'wa_ms_until_next_due',
        sql`SELECT x.session_id, greatest(0, extract(epoch FROM x.at - now()) * 1000)::float8 AS ms
            FROM (
              SELECT s.id AS session_id,
                CASE WHEN p.paused IS NOT TRUE THEN n.due_at
                     -- least and greatest ignore NULLs: no end time means no wake-up for those.
                     ELSE least(g.due_at, CASE WHEN p.until IS NOT NULL THEN greatest(n.due_at, p.until) END) END AS at
              FROM unnest(${sql.param(sessionIds)}::text[]) AS s(id)
              CROSS JOIN LATERAL (
                SELECT r.due_at FROM message_job_recipients r
                WHERE r.session_id = s.id AND r.status = 'queued'
                ORDER BY r.due_at LIMIT 1
              ) n
              LEFT JOIN LATERAL (
                SELECT ${pausedNow(sql.raw('w'))} AS paused, w.send_paused_until AS until
                FROM wa_sessions w WHERE w.session_id = s.id
              ) p ON true
              LEFT JOIN LATERAL (
                SELECT r.due_at FROM message_job_recipients r
                WHERE p.paused AND r.session_id = s.id AND r.status = 'queued'
                  AND r.chat_id NOT LIKE '%@s.whatsapp.net'
                ORDER BY r.due_at LIMIT 1
              ) g ON true
            ) x
            WHERE x.at IS NOT NULL`,
      );
      return new Map(rows.map((r) => [r.session_id, Number(r.ms)]));
    },

    recordSent(recipientId, sent, claimNextOf, groupsOnly) {
      return ticked({ sent: { id: recipientId, ...sent }, claimFor: claimNextOf, groupsOnly });
    },

    policyOf: (sessionId) => findPolicy(db, sessionId),
    countSentSince: (sessionId, since) => countSentSince(db, sessionId, since),
    setHold: (sessionId, reason, until) => setHold(db, sessionId, reason, until),

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
              ${countersUpdate(sql`(SELECT job_id FROM r)`, { failed: 1, sendOutcome: true })}
              RETURNING j.id AS job_id, j.id, j.status, j.user_id, 1 AS n
            ), held AS (
              ${holdPausedCte('counted')}
            ), ${refundCtes('counted', error)}
            SELECT job_id FROM counted`,
      );
    },

    async failSent(sessionId, messageId, reason) {
      const groups = await db.transaction((tx) =>
        failAndRefundWhere(
          tx,
          sql`r.session_id = ${sessionId} AND r.message_id = ${messageId} AND r.status = 'sent'`,
          reason,
          reason,
          10,
        ),
      );
      return groups.length > 0;
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

    async pauseSession(sessionId, reason, until) {
      // An end time the session already has (WhatsApp's answer may land first) is kept.
      await db
        .update(waSessions)
        .set({
          sendPaused: true,
          statusReason: reason,
          sendPausedUntil:
            until ??
            sql`CASE WHEN ${waSessions.sendPaused} AND ${waSessions.sendPausedUntil} > now()
                     THEN ${waSessions.sendPausedUntil} END`,
          updatedAt: new Date(),
        })
        .where(eq(waSessions.sessionId, sessionId));
    },

    async liftEndedPauses() {
      const rows = await queryRows<{ session_id: string }>(
        db,
        sql`UPDATE wa_sessions SET send_paused = false, send_paused_until = NULL, status_reason = NULL,
                                   updated_at = now()
            WHERE send_paused AND send_paused_until <= now()
            RETURNING session_id`,
      );
      return rows.map((r) => r.session_id);
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
      // A session can send when a node holds its live lease and it is CONNECTED. Jobs with due
      // recipients on an account that cannot send start (or keep) their waiting clock; the clock
      // stops as soon as none of their accounts with due recipients is down.
      await db.execute(
        sql`UPDATE message_jobs j SET waiting_since = now()
            WHERE j.waiting_since IS NULL AND j.status IN ('pending', 'processing', 'scheduled')
              AND ${waitsOnDownAccount}`,
      );
      await db.execute(
        sql`UPDATE message_jobs j SET waiting_since = NULL
            WHERE j.waiting_since IS NOT NULL AND NOT ${waitsOnDownAccount}`,
      );
    },

    async sweepsDue(waitMs) {
      // Each EXISTS is the condition of one operation below (or a wider one), so an operation
      // skipped here would have found nothing to do.
      const [row] = await hotRows<{ [K in keyof SweepsDue]: boolean }>(
        db,
        'wa_sweeps_due',
        sql`SELECT
              EXISTS (SELECT 1 FROM message_job_recipients r
                      WHERE r.status = 'sending' AND r.lease_expires_at < now()) AS "expiredLeases",
              EXISTS (SELECT 1 FROM wa_sessions WHERE send_paused AND send_paused_until <= now()) AS "endedPauses",
              EXISTS (SELECT 1 FROM message_jobs j
                      WHERE j.session_ids IS NOT NULL AND j.status IN ('pending', 'processing', 'scheduled')) AS "spreadJobs",
              EXISTS (SELECT 1 FROM message_jobs j WHERE j.waiting_since IS NOT NULL)
                OR EXISTS (SELECT 1 FROM message_jobs j
                           WHERE j.waiting_since IS NULL AND j.status IN ('pending', 'processing', 'scheduled')
                             AND ${waitsOnDownAccount}) AS "waitingClocks",
              EXISTS (SELECT 1 FROM message_jobs WHERE waiting_since <= now() - ${ms(waitMs)}) AS "longWaiting",
              EXISTS (SELECT 1 FROM message_job_recipients r WHERE ${forbiddenWaiting()}) AS forbidden`,
      );
      return row!;
    },

    failLongWaiting(waitMs) {
      // Only recipients whose own account cannot send: those of a spread job's healthy accounts go on.
      return db.transaction((tx) =>
        failAndRefundWhere(
          tx,
          sql`r.status = 'queued' AND r.due_at <= now() AND NOT ${canSend(sql.raw('r.session_id'))}
              AND r.job_id IN (
                SELECT id FROM message_jobs WHERE waiting_since IS NOT NULL AND waiting_since <= now() - ${ms(waitMs)})`,
          DISPATCH_MESSAGES.notConnected,
          DISPATCH_MESSAGES.notConnected,
          5000,
        ),
      );
    },

    async moveFromDownAccounts(afterMs) {
      const moved = await queryRows<{ session_id: string }>(db, failoverStatement(afterMs, 5000));
      return [...new Set(moved.map((m) => m.session_id))];
    },

    failForbidden() {
      return failForbiddenWaitingIn(db);
    },

    async applyReceipts(receipts) {
      if (receipts.length === 0) return [];
      const sessions = receipts.map((r) => r.sessionId);
      const ids = receipts.map((r) => r.messageId);
      const reads = receipts.map((r) => r.status === 'read');
      const ats = receipts.map((r) => r.at.toISOString());
      // One statement. Jobs are locked first, in id order, then their recipients: the order of
      // the jobs API (delete, retry, which lock the job row first) and of the tick; recipients
      // first deadlocked with a job being deleted (reliability races). Both the update (old) and
      // the answer wait on the InitPlan of `locked`. That lock is KEY SHARE: it keeps a job from
      // being deleted or retried under the receipts, but lets the dispatch tick (NO KEY UPDATE)
      // record sends of the same jobs meanwhile. With FOR UPDATE over five round trips, ticks
      // waited 30-50 ms while receipts came in (auto_explain). Only the counters' update, the
      // statement's last step, takes the rows' update lock, again in id order (relock).
      // The answer: the receipts no recipient matched (not recorded yet).
      const unmatched = await queryRows<{ i: number }>(
        db,
        sql`WITH t AS (
              SELECT * FROM unnest(${sql.param(sessions)}::text[], ${sql.param(ids)}::text[],
                ${sql.param(reads)}::boolean[], ${sql.param(ats)}::timestamptz[])
                WITH ORDINALITY AS t(session_id, message_id, is_read, at, i)
            ), locked AS MATERIALIZED (
              SELECT j.id FROM message_jobs j
              WHERE j.id IN (SELECT r.job_id FROM message_job_recipients r
                             JOIN t ON t.session_id = r.session_id AND t.message_id = r.message_id)
              ORDER BY j.id FOR KEY SHARE OF j
            ), input AS (
              SELECT session_id, message_id, bool_or(is_read) AS is_read, min(at) AS at
              FROM t
              GROUP BY session_id, message_id
            ), old AS (
              SELECT r.id, r.job_id, r.delivered_at IS NOT NULL AS was_delivered, r.read_at IS NOT NULL AS was_read
              FROM message_job_recipients r JOIN input i ON i.session_id = r.session_id AND i.message_id = r.message_id
              WHERE (SELECT count(*) FROM locked) >= 0
              FOR UPDATE OF r
            ), updated AS (
              UPDATE message_job_recipients r
              SET delivered_at = coalesce(r.delivered_at, i.at),
                  read_at = CASE WHEN i.is_read THEN coalesce(r.read_at, i.at) ELSE r.read_at END,
                  updated_at = now()
              FROM input i, old o
              WHERE o.id = r.id AND i.session_id = r.session_id AND i.message_id = r.message_id
              RETURNING r.job_id, NOT o.was_delivered AS new_delivered, (i.is_read AND NOT o.was_read) AS new_read
            ), per_job AS (
              SELECT job_id, count(*) FILTER (WHERE new_delivered)::int AS d, count(*) FILTER (WHERE new_read)::int AS rd
              FROM updated GROUP BY job_id
            ), relock AS MATERIALIZED (
              -- In id order: the update alone would lock in per_job's hash order, and a tick
              -- locks in id order (a deadlock).
              SELECT j.id FROM message_jobs j
              WHERE j.id IN (SELECT job_id FROM per_job WHERE d > 0 OR rd > 0)
              ORDER BY j.id FOR NO KEY UPDATE OF j
            ), counted AS (
              UPDATE message_jobs j SET delivered_count = j.delivered_count + p.d, read_count = j.read_count + p.rd
              FROM per_job p WHERE j.id = p.job_id AND (p.d > 0 OR p.rd > 0)
                AND (SELECT count(*) FROM relock) >= 0
              RETURNING j.id
            )
            SELECT t.i::int AS i FROM t
            WHERE (SELECT count(*) FROM locked) >= 0
              AND NOT EXISTS (SELECT 1 FROM message_job_recipients r
                              WHERE r.session_id = t.session_id AND r.message_id = t.message_id)`,
      );
      return unmatched.map((u) => receipts[Number(u.i) - 1]!);
    },

    async loadMessage(jobId) {
      const [job] = await db.select().from(messageJobs).where(eq(messageJobs.id, jobId));
      if (!job) return null;
      const [file] = job.mediaId ? await db.select().from(media).where(eq(media.id, job.mediaId)) : [];
      return outgoingMessage(job, file);
    },
  };
}
