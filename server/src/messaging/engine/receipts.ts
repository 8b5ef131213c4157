import { chatIdOfPhone } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import type { ReceiptUpdate } from '../../transport/types.ts';

/** A receipt (a status view's names its viewer, `by`), with the account it came back to. */
export type AccountReceipt = ReceiptUpdate & { accountId: string };

/**
 * Receipt row `x` (with a viewer `chat_id`, or none) is for recipient `r`: the viewer is the
 * number the recipient was asked for, or the JID WhatsApp answered for it (a number written
 * another way, Brazil's 9th digit). Either, not the answer alone: a recipient whose answer was
 * another form still takes the view its own number reports.
 */
const viewerMatches = (x: string) =>
  sql.raw(`(${x}.chat_id IS NULL OR ${x}.chat_id = r.chat_id OR ${x}.chat_id = r.sent_to)`);

/**
 * Applies a batch of delivery and read receipts of any accounts of this node, in one
 * statement. A receipt for a recipient already declared undelivered marks it delivered and takes
 * it off its job's undelivered count. Returns those whose message id no recipient has (yet: a receipt can arrive before
 * the send is recorded).
 */
export async function applyReceipts(db: Db, receipts: AccountReceipt[]): Promise<AccountReceipt[]> {
  if (receipts.length === 0) return [];
  const accounts = receipts.map((r) => r.accountId);
  const ids = receipts.map((r) => r.messageId);
  const reads = receipts.map((r) => r.status === 'read');
  const ats = receipts.map((r) => r.at.toISOString());
  // A status view names its viewer: only that audience member's row (its number, or the JID
  // WhatsApp answered for it) takes it; other receipts match every row of their message id.
  const viewers = receipts.map((r) => (r.by ? chatIdOfPhone(r.by) : null));
  // One statement. Jobs are locked first, in id order, then their recipients: the order of
  // the jobs API (delete, retry, which lock the job row first) and of the tick; recipients
  // first deadlocked with a job being deleted (reliability races). Both the update (old) and
  // the answer wait on the InitPlan of `locked`. That lock is KEY SHARE: it keeps a job from
  // being deleted or retried under the receipts, but lets the dispatch tick (NO KEY UPDATE)
  // record sends of the same jobs meanwhile. With FOR UPDATE over five round trips, ticks
  // waited 30-50 ms while receipts came in (auto_explain). Only the counters' update, the
  // statement's last step, takes the rows' update lock, again in id order (relock).
  // Each receipt finds its recipients once (`matched`), by one probe of the message index per
  // receipt (a lateral join, whatever the statistics say): joined as a set, the planner chose
  // three full scans of that index per batch when its statistics were older than the sends
  // (a batch then cost as much as the table is large, not as the batch is).
  // The answer: the receipts no recipient matched (not recorded yet).
  const unmatched = await queryRows<{ i: number }>(
    db,
    sql`WITH t AS (
          SELECT * FROM unnest(${sql.param(accounts)}::text[], ${sql.param(ids)}::text[],
            ${sql.param(reads)}::boolean[], ${sql.param(ats)}::timestamptz[], ${sql.param(viewers)}::text[])
            WITH ORDINALITY AS t(session_id, message_id, is_read, at, chat_id, i)
        ), matched AS MATERIALIZED (
          SELECT t.i, t.session_id, t.message_id, t.is_read, t.at, m.id, m.job_id FROM t CROSS JOIN LATERAL (
            SELECT r.id, r.job_id FROM message_job_recipients r
            WHERE r.session_id = t.session_id AND r.message_id = t.message_id AND ${viewerMatches('t')}
            OFFSET 0 -- kept a subquery: pulled up into a join, it is planned as one again
          ) m
        ), locked AS MATERIALIZED (
          SELECT j.id FROM message_jobs j
          WHERE j.id IN (SELECT job_id FROM matched)
          ORDER BY j.id FOR KEY SHARE OF j
        ), input AS (
          -- Per recipient: every receipt of this batch that names it.
          -- In id order, the order old locks them in: two batches of one message's statuses
          -- (Cloud webhooks on two nodes) wait for each other instead of deadlocking.
          SELECT id, session_id, message_id, bool_or(is_read) AS is_read, min(at) AS at
          FROM matched GROUP BY id, session_id, message_id ORDER BY id
        ), old AS (
          SELECT x.*, i.is_read, i.at FROM input i CROSS JOIN LATERAL (
            -- Re-read under the lock: still the recipient of that message.
            SELECT r.id, r.job_id, r.delivered_at IS NOT NULL AS was_delivered, r.read_at IS NOT NULL AS was_read,
                   r.undelivered_at IS NOT NULL AS was_undelivered
            FROM message_job_recipients r
            WHERE r.id = i.id AND r.session_id = i.session_id AND r.message_id = i.message_id
            FOR UPDATE OF r
          ) x
          WHERE (SELECT count(*) FROM locked) >= 0
        ), updated AS (
          UPDATE message_job_recipients r
          SET delivered_at = coalesce(r.delivered_at, o.at),
              read_at = CASE WHEN o.is_read THEN coalesce(r.read_at, o.at) ELSE r.read_at END,
              -- Arrived after all (a receipt after UNDELIVERED_AFTER_MS): no longer undelivered.
              undelivered_at = NULL, undelivered_reason = NULL,
              updated_at = now()
          FROM old o
          -- The ids as an array: one probe of the primary key each, never a scan of the table.
          WHERE r.id = ANY (ARRAY(SELECT id FROM old)) AND o.id = r.id
          RETURNING r.id, r.job_id, NOT o.was_delivered AS new_delivered, (o.is_read AND NOT o.was_read) AS new_read,
                    o.was_undelivered
        ), per_job AS (
          SELECT job_id, count(*) FILTER (WHERE new_delivered)::int AS d, count(*) FILTER (WHERE new_read)::int AS rd,
                 count(*) FILTER (WHERE was_undelivered)::int AS u
          FROM updated GROUP BY job_id
        ), relock AS MATERIALIZED (
          -- In id order: the update alone would lock in per_job's hash order, and a tick
          -- locks in id order (a deadlock).
          SELECT j.id FROM message_jobs j
          WHERE j.id IN (SELECT job_id FROM per_job WHERE d > 0 OR rd > 0)
          ORDER BY j.id FOR NO KEY UPDATE OF j
        ), counted AS (
          UPDATE message_jobs j SET delivered_count = j.delivered_count + p.d, read_count = j.read_count + p.rd,
                                    undelivered_count = j.undelivered_count - p.u
          FROM per_job p WHERE j.id = p.job_id AND (p.d > 0 OR p.rd > 0)
            AND (SELECT count(*) FROM relock) >= 0
          RETURNING j.id
        )
        SELECT t.i::int AS i FROM t
        WHERE (SELECT count(*) FROM locked) >= 0 AND t.i NOT IN (SELECT i FROM matched)`,
  );
  return unmatched.map((u) => receipts[Number(u.i) - 1]!);
}
