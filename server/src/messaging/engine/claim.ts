import { type SQL, sql } from 'drizzle-orm';
import { isPhoneChat } from '../../db/vocabulary-sql.ts';
import { carriesPrivacyToken } from '../../transport/privacy-tokens.ts';
import type { ClaimScope } from '../limits/allowance.ts';
import { jobCounters, ms, ownerMaySend, sendPausedNow as pausedNow } from './rules.ts';

/** Who is claiming: the node written in leases, and how long a lease lasts. */
export type Claimer = { nodeId: string; leaseMs: number };

/** A send the transport finished: `kept` is its copy of the message (SendResult.kept). */
export type SentMessage = { messageId: string; sentTo?: string | null; kept?: string };

/**
 * The statements of the claim and of recordSent (transitions.ts), the engine's hot path: one per
 * tick for every account of a node.
 */

/**
 * The account of recipient `r` has its new one-to-one chats restricted now (463, CAPPED) and `r`
 * is a new one-to-one chat (its contact gave the account no privacy token): it waits. Group
 * recipients and chats that carry a token go on.
 */
export const heldByPause = (r: SQL, accountId: SQL) => sql`(${isPhoneChat(sql`${r}.chat_id`)} AND EXISTS (
      SELECT 1 FROM wa_sessions s WHERE s.session_id = ${accountId} AND ${pausedNow(sql.raw('s'))})
      AND NOT ${carriesPrivacyToken(accountId, sql`${r}.chat_id`)})`;

/**
 * Recipient `r` may be claimed in `scope` (allowance.ts ClaimScope, a text of the statement): any
 * one; a group or a channel (no one-to-one chat); or also a number its account has messaged
 * before (a sent recipient of the same account and chat: one probe of the (account, chat,
 * sent_at) index, only for one-to-one chats under the new-contact cap).
 */
const inScope = (
  r: string,
  scope: SQL,
) => sql`(${scope} = 'all' OR NOT ${isPhoneChat(sql.raw(`${r}.chat_id`))}
      OR (${scope} = 'known' AND EXISTS (
        SELECT 1 FROM message_job_recipients p
        WHERE p.session_id = ${sql.raw(r)}.session_id AND p.chat_id = ${sql.raw(r)}.chat_id AND p.status = 'sent')))`;

/**
 * The claim as CTEs (`due`, `claimed`, `started`), to run alone or after recording an outcome.
 * `scope` leaves one-to-one chats queued (the warm-up cap is reached), or only the numbers the
 * account never messaged (the new-contact cap is reached).
 */
export function claimCtes(accountId: string, by: Claimer, limit: number, scope: ClaimScope) {
  return sql`due AS (
          SELECT r.id FROM message_job_recipients r
          WHERE r.session_id = ${accountId} AND r.status = 'queued' AND r.due_at <= now()
            AND NOT ${heldByPause(sql.raw('r'), sql`${accountId}`)}
            ${scope === 'all' ? sql`` : sql`AND ${inScope('r', sql`${scope}::text`)}`}
            AND ${ownerMaySend('r')}
          ORDER BY r.due_at, r.id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE message_job_recipients r
          SET status = 'sending', lease_owner = ${by.nodeId}, lease_expires_at = now() + ${ms(by.leaseMs)},
              attempts = r.attempts + 1, updated_at = now()
          FROM due WHERE r.id = due.id
          RETURNING r.id, r.job_id, r.chat_id, r.content, r.message_id
        ), started AS (
          -- Skips a job row another transaction holds (a delete, a retry, which lock the job before
          -- its recipients): waiting here, with recipients locked, could deadlock with them. The
          -- first recorded outcome then marks the job processing (rules.ts, jobCounters).
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
 * One statement per tick for every account of this node (batched ticks): records the sent
 * recipients given (with their jobs' counters) and claims the next due recipients of each account
 * in `claimFor`, `counts` of them (an account appears once: one LATERAL per account, so that two
 * claims of one statement are never handed the same row). The claim cannot see what the same
 * statement records (one snapshot), and a job row the record updates is left to it (`started`
 * skips those jobs).
 */
export function recordAndClaimBatch(
  by: Claimer,
  sent: { ids: number[]; messageIds: string[]; sentTo: Array<string | null>; kept: Array<string | null> },
  claimFor: string[],
  scopes: ClaimScope[],
  counts: number[],
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
          WHERE m.id = i.id AND m.status = 'sending' AND m.lease_owner = ${by.nodeId}
            AND (SELECT count(*) FROM locked) >= 0
          RETURNING m.job_id
        ), per_job AS (
          SELECT job_id, count(*)::int AS n FROM r GROUP BY job_id
        ), counted AS (
          UPDATE message_jobs j SET ${jobCounters({ sent: sql`p.n` }, { starts: true, outcome: true })}
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
          SELECT * FROM unnest(${sql.param(claimFor)}::text[], ${sql.param(scopes)}::text[], ${sql.param(counts)}::int[])
                        AS w(session_id, scope, n)
          WHERE (SELECT count(*) FROM locked) >= 0
        ), due AS (
          SELECT x.id FROM want w CROSS JOIN LATERAL (
            SELECT q.id FROM message_job_recipients q
            WHERE q.session_id = w.session_id AND q.status = 'queued' AND q.due_at <= now()
              AND NOT ${heldByPause(sql.raw('q'), sql.raw('w.session_id'))}
              AND ${inScope('q', sql.raw('w.scope'))}
              AND ${ownerMaySend('q')}
            ORDER BY q.due_at, q.id
            LIMIT w.n
            FOR UPDATE SKIP LOCKED
          ) x
        ), claimed AS (
          UPDATE message_job_recipients q
          SET status = 'sending', lease_owner = ${by.nodeId}, lease_expires_at = now() + ${ms(by.leaseMs)},
              attempts = q.attempts + 1, updated_at = now()
          FROM due WHERE q.id = due.id
          RETURNING q.id, q.job_id, q.chat_id, q.content, q.message_id, q.session_id
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
        SELECT id::text AS id, job_id, chat_id, content, message_id, session_id FROM claimed`;
}
