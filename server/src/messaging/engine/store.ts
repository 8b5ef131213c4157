import { eq, type SQL, sql } from 'drizzle-orm';
import { recordAccountEvent } from '../../accounts/health/repository.ts';
import { liftEndedPauses, pauseOnRefusal } from '../../accounts/send-pause.ts';
import { batcher } from '../../db/batching.ts';
import type { Db } from '../../db/client.ts';
import { media, messageJobs } from '../../db/schema.ts';
import { isPausableJob, isPhoneChat } from '../../db/vocabulary-sql.ts';
import { outgoingMessage } from '../compose.ts';
import type { ClaimScope } from '../limits/allowance.ts';
import { countSentSince, findPolicy, setHold } from '../limits/repository.ts';
import { DISPATCH_MESSAGES } from '../messages.ts';
import type { Claimer } from './claim.ts';
import * as cloud from './cloud-transitions.ts';
import { statusPostOf } from './dispatch-message.ts';
import { hotRows, ms, sendPausedNow as pausedNow } from './rules.ts';
import * as status from './status-transitions.ts';
import type { ClaimedRecipient, DispatchStore, SentMessage, SweepsDue } from './store-port.ts';
import * as t from './transitions.ts';
import { someForbiddenWaiting } from './transitions.ts';

/** How many sends of an account the undelivered sweep reads per statement. */
const UNDELIVERED_BATCH = 1000;

/** How long a recipient stays `sending` before another node may declare its delivery unknown. */
export function recipientLeaseMs(config: { accountLeaseMs: number }): number {
  return Math.max(config.accountLeaseMs * 2, 60_000);
}

/** Account `accountId` can send now: CONNECTED, and a node holds its live lease. */
const canSend = (accountId: SQL) => sql`EXISTS (SELECT 1 FROM wa_sessions s WHERE s.session_id = ${accountId}
    AND s.status = 'CONNECTED' AND s.owner_node IS NOT NULL AND s.lease_expires_at > now())`;

/**
 * Job `j` has due recipients on an account that cannot send (each recipient's own account counts:
 * a job may be spread over several). Recipients held by WhatsApp's restriction of new chats (463,
 * CAPPED) wait without a clock: they resume with it (docs/decisions.md, Sending pace).
 *
 * The job's accounts that cannot send are found first (OFFSET 0 keeps that subquery apart), and
 * only theirs are probed for due recipients: planned as one join, the probe of every job's queue
 * came first, and the sweeps' check of it (sweepsDue, every second) read the whole due index of
 * every busy account (33 ms a check with 50 accounts sending 10,000 messages).
 */
const waitsOnDownAccount = sql`EXISTS (
    SELECT 1 FROM (
      SELECT a.session_id FROM unnest(coalesce(j.session_ids, ARRAY[j.session_id])) AS a(session_id)
      WHERE NOT ${canSend(sql.raw('a.session_id'))}
      OFFSET 0
    ) down
    WHERE EXISTS (SELECT 1 FROM message_job_recipients r
                  WHERE r.session_id = down.session_id AND r.job_id = j.id
                    AND r.status = 'queued' AND r.due_at <= now()))`;

/** The store over the database, for one node (`nodeId` is the owner written in leases). */
export function createDispatchStore(db: Db, nodeId: string, leaseMs: number): DispatchStore {
  type TickCall = { sent?: { id: number } & SentMessage; claimFor?: string; scope?: ClaimScope };
  const by: Claimer = { nodeId, leaseMs };
  const runTick = async (calls: TickCall[]): Promise<Array<ClaimedRecipient | null>> => {
    // The calls of one account (an account's lanes) claim together: one claim of as many rows as
    // they ask for, handed out in turn. A call whose scope differs from its account's first call
    // claims nothing here (null: its loop claims again on its own).
    const claimFor = new Map<string, { accountId: string; scope: ClaimScope; count: number }>();
    for (const c of calls) {
      if (!c.claimFor) continue;
      const scope = c.scope ?? 'all';
      const wanted = claimFor.get(c.claimFor);
      if (!wanted) claimFor.set(c.claimFor, { accountId: c.claimFor, scope, count: 1 });
      else if (wanted.scope === scope) wanted.count += 1;
    }
    const byAccount = await t.recordSent(
      db,
      by,
      calls.flatMap((c) => (c.sent ? [c.sent] : [])),
      [...claimFor.values()],
    );
    return calls.map((c) => {
      if (!c.claimFor || claimFor.get(c.claimFor)!.scope !== (c.scope ?? 'all')) return null;
      return byAccount.get(c.claimFor)?.shift() ?? null;
    });
  };
  // Every account loop's "record what I sent, claim my next" of one tick, in one statement.
  // A failed statement changed nothing: each call is tried alone, so that one account's fault (a
  // deadlock, an account deleted between the check and the insert of its kept message) does not
  // leave every other account's sends unrecorded. Alone, a call whose kept message cannot be
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
    // Any calls share a statement: one account's claims are one claim of several rows (runTick).
    () => undefined,
    // Three ticks at once: all lock their jobs in id order first (locked), and claims skip rows
    // another tick locked.
    // 50 accounts x 200 on PostgreSQL, once receipts no longer held the jobs (medians of three
    // rounds): 2 in flight 4,912/s, 3 5,459 and 5,219/s, 4 4,218/s.
    3,
  );
  const ticked = async (call: TickCall) => {
    const out = await tick(call);
    if (out instanceof Error) throw out;
    return out;
  };

  return {
    claim(accountId, limit, scope = 'all') {
      if (limit === 1) return ticked({ claimFor: accountId, scope }).then((next) => (next ? [next] : []));
      return t.claim(db, by, accountId, limit, scope);
    },

    async msUntilNextDue(accountIds) {
      if (accountIds.length === 0) return new Map();
      // One probe of the due index per account (min over the partial index is its first entry).
      // An account whose one-to-one sends are paused: its first group recipient (a second probe,
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
              FROM unnest(${sql.param(accountIds)}::text[]) AS s(id)
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
                  AND NOT ${isPhoneChat(sql.raw('r.chat_id'))}
                ORDER BY r.due_at LIMIT 1
              ) g ON true
            ) x
            WHERE x.at IS NOT NULL`,
      );
      return new Map(rows.map((r) => [r.session_id, Number(r.ms)]));
    },

    recordSent(recipientId, sent, claimNextOf, scope) {
      return ticked({ sent: { id: recipientId, ...sent }, claimFor: claimNextOf, scope });
    },

    policyOf: (accountId) => findPolicy(db, accountId),
    countSentSince: (accountId, since, newContacts) => countSentSince(db, accountId, since, newContacts),
    setHold: (accountId, reason, until) => setHold(db, accountId, reason, until),

    fail(recipientId, error) {
      return t.fail(db, by, recipientId, error);
    },

    release(recipientIds) {
      return t.release(db, by, recipientIds);
    },
    releaseUnacked: (recipientId, messageId) => t.releaseUnacked(db, by, recipientId, messageId),
    defer: (recipientIds, until) => cloud.defer(db, by, recipientIds, until),
    retryLater: (recipientId, until, title) => cloud.retryLater(db, by, recipientId, until, title),

    pauseAccount: (accountId, reason, until) => pauseOnRefusal(db, accountId, reason, until),
    liftEndedPauses: () => liftEndedPauses(db),
    noteRateLimited: (accountId) => recordAccountEvent(db, accountId, 'rate-limited', null),

    failForeignClaims(accountId) {
      return t.expire(db, { accountId, by });
    },

    failExpiredLeases() {
      return t.expire(db, 'leases');
    },

    async updateWaitingClocks() {
      // An account can send when a node holds its live lease and it is CONNECTED. Jobs with due
      // recipients on an account that cannot send start (or keep) their waiting clock; the clock
      // stops as soon as none of their accounts with due recipients is down.
      await db.execute(
        sql`UPDATE message_jobs j SET waiting_since = now()
            WHERE j.waiting_since IS NULL AND ${isPausableJob(sql.raw('j.status'))}
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
                      WHERE j.session_ids IS NOT NULL AND ${isPausableJob(sql.raw('j.status'))}) AS "spreadJobs",
              EXISTS (SELECT 1 FROM message_jobs j WHERE j.waiting_since IS NOT NULL)
                OR EXISTS (SELECT 1 FROM message_jobs j
                           WHERE j.waiting_since IS NULL AND ${isPausableJob(sql.raw('j.status'))}
                             AND ${waitsOnDownAccount}) AS "waitingClocks",
              EXISTS (SELECT 1 FROM message_jobs WHERE waiting_since <= now() - ${ms(waitMs)}) AS "longWaiting",
              ${someForbiddenWaiting} AS forbidden`,
      );
      return row!;
    },

    failLongWaiting(waitMs) {
      // Only recipients whose own account cannot send: those of a spread job's healthy accounts go on.
      return db.transaction((tx) =>
        t.failWhere(
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

    moveFromDownAccounts(afterMs) {
      return t.reassign(db, afterMs, 5000);
    },

    failForbidden() {
      return t.failForbidden(db);
    },

    async markUndelivered(afterMs) {
      await t.markNewAccounts(db);
      let total = 0;
      for (;;) {
        const { marked, more } = await t.undeliver(db, afterMs, UNDELIVERED_BATCH);
        total += marked;
        if (!more) return total;
      }
    },

    noteUndeliveredCause: (accountId, cause) => t.noteUndeliveredCause(db, accountId, cause),

    async recordSentAfterAll(sent) {
      return (await t.sentAfterAll(db, sent)).length;
    },

    async loadMessage(jobId) {
      const [job] = await db.select().from(messageJobs).where(eq(messageJobs.id, jobId));
      if (!job) return null;
      const [file] = job.mediaId ? await db.select().from(media).where(eq(media.id, job.mediaId)) : [];
      return job.messageType === 'status' ? statusPostOf(job, file) : outgoingMessage(job, file);
    },

    claimStatusBatch: (accountId, jobId) => status.claimStatusBatch(db, by, accountId, jobId),
    recordStatusSent: (sent) => status.recordStatusSent(db, by, sent),
    async failStatusRecipients(recipientIds, error) {
      await status.failStatusRecipients(db, by, recipientIds, error);
    },
  };
}
