import { CLOUD_TEXTS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { type Claimer, type FailedGroup, fail, failWhere } from './transitions.ts';

/**
 * The Cloud API's own transitions of a recipient (issue 30), beside transitions.ts and in its
 * manner: one statement each, jobs locked before their recipients.
 */

/** How many times Meta's per-user marketing limit (131049) sends a recipient back to wait a day. */
export const CLOUD_RETRIES_MAX = 2;

/**
 * defer: claimed recipients that were never sent (the transport said when to try: the account's
 * 24-hour tier is full, Meta asked to back off) go back in the queue, due at `until`.
 */
export async function defer(db: Db, by: Claimer, recipientIds: number[], until: Date): Promise<void> {
  if (recipientIds.length === 0) return;
  await db.execute(
    sql`UPDATE message_job_recipients
        SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0),
            due_at = greatest(due_at, ${until.toISOString()}::timestamptz), updated_at = now()
        WHERE id = ANY(${sql.param(recipientIds)}::bigint[]) AND status = 'sending' AND lease_owner = ${by.nodeId}`,
  );
}

/**
 * retryLater (a send Meta refused with 131049): the recipient waits until `until` and is sent
 * again, up to CLOUD_RETRIES_MAX times; the next refusal fails it (refunded). Not a failure
 * meanwhile: its credit stays reserved.
 */
export async function retryLater(db: Db, by: Claimer, recipientId: number, until: Date, title: string) {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`UPDATE message_job_recipients
        SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, due_at = ${until.toISOString()}::timestamptz,
            cloud_retries = cloud_retries + 1, error = ${title}, updated_at = now()
        WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${by.nodeId}
          AND cloud_retries < ${CLOUD_RETRIES_MAX}
        RETURNING id`,
  );
  if (rows.length === 0) await fail(db, by, recipientId, CLOUD_TEXTS.retriedOut);
}

/**
 * How long Meta keeps trying to deliver a message the recipient's phone has not taken: a `failed`
 * status for a message sent longer ago than this is not one Meta can give, and changes nothing.
 */
export const META_DELIVERY_DAYS = 30;

/**
 * The recipient of `messageId` while a `failed` status may still move it: counted sent, with no
 * delivered and no read receipt, sent within META_DELIVERY_DAYS. A status never moves a recipient
 * backwards: once its phone took the message, no later failure fails it or refunds it.
 */
function failable(sessionId: string, messageId: string) {
  return sql`r.session_id = ${sessionId} AND r.message_id = ${messageId} AND r.status = 'sent'
             AND r.delivered_at IS NULL AND r.read_at IS NULL
             AND r.sent_at > now() - make_interval(days => ${META_DELIVERY_DAYS})`;
}

/**
 * Where a `failed` status for `messageId` stands: 'open' (failable now), 'settled' (its recipient
 * is past where a failure may move it, or moved already), or null when no recipient has it yet.
 */
export async function failureStanding(
  db: Db,
  sessionId: string,
  messageId: string,
): Promise<'open' | 'settled' | null> {
  const rows = await queryRows<{ open: boolean }>(
    db,
    sql`SELECT (${failable(sessionId, messageId)}) AS open FROM message_job_recipients r
        WHERE r.session_id = ${sessionId} AND r.message_id = ${messageId} LIMIT 1`,
  );
  if (rows.length === 0) return null;
  return rows[0]!.open ? 'open' : 'settled';
}

/**
 * failByStatus (a `failed` status webhook): the recipient of `messageId`, when still failable,
 * fails with Meta's title and is refunded; the refund is written to the audit log in the same
 * transaction (a webhook is signed with a secret the account's owner typed, so what it refunds
 * must be traceable). Returns whether a recipient failed.
 */
export function failByStatus(db: Db, sessionId: string, messageId: string, reason: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const failed = await failWhere(tx, failable(sessionId, messageId), reason, reason, 1);
    await auditRefunds(tx, sessionId, messageId, reason, failed);
    return failed.length > 0;
  });
}

/**
 * retrySent (a `failed` status webhook with 131049 for a failable message): the recipient is
 * queued again for `until` (its sent count moves back; a finished job reopens), up to
 * CLOUD_RETRIES_MAX times; beyond that it fails and is refunded (audited). Returns whether a
 * recipient matched.
 */
export async function retrySent(db: Db, sessionId: string, messageId: string, until: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const jobs = await queryRows<{ job_id: string }>(
      tx,
      sql`SELECT r.job_id FROM message_job_recipients r WHERE ${failable(sessionId, messageId)}`,
    );
    if (jobs.length === 0) return false;
    await tx.execute(sql`SELECT id FROM message_jobs WHERE id = ${jobs[0]!.job_id} FOR UPDATE`);
    const requeued = await queryRows<{ job_id: string }>(
      tx,
      sql`WITH r AS (
            UPDATE message_job_recipients r
            SET status = 'queued', due_at = ${until.toISOString()}::timestamptz, cloud_retries = cloud_retries + 1,
                sent_at = NULL, delivered_at = NULL, read_at = NULL, updated_at = now()
            WHERE ${failable(sessionId, messageId)} AND r.cloud_retries < ${CLOUD_RETRIES_MAX}
            RETURNING r.id, r.job_id
          ), reopened AS (
            UPDATE message_jobs j SET sent_count = j.sent_count - 1,
              status = CASE WHEN j.status IN ('completed', 'failed') THEN 'processing' ELSE j.status END,
              finished_at = NULL
            WHERE j.id = (SELECT job_id FROM r)
            RETURNING j.id
          ) SELECT job_id FROM r`,
    );
    if (requeued.length > 0) return true;
    const failed = await failWhere(
      tx,
      failable(sessionId, messageId),
      CLOUD_TEXTS.retriedOut,
      CLOUD_TEXTS.retriedOut,
      1,
    );
    await auditRefunds(tx, sessionId, messageId, CLOUD_TEXTS.retriedOut, failed);
    return failed.length > 0;
  });
}

/** One audit line per job a status webhook refunded credits to. */
async function auditRefunds(
  db: Db,
  sessionId: string,
  messageId: string,
  reason: string,
  failed: FailedGroup[],
) {
  for (const g of failed) {
    if (g.credits <= 0) continue;
    await recordAudit(db, {
      actor: { id: null, username: 'cloud-webhook' },
      action: 'credits.webhook-refund',
      targetUserId: g.userId,
      details: { sessionId, messageId, jobId: g.jobId, credits: g.credits, reason },
    });
  }
}

/**
 * Meta's pricing of a message (status webhooks): the category from the first status that names
 * one; the cost (the category's price) once it is delivered and billable, set once.
 */
export async function recordPricing(
  db: Db,
  sessionId: string,
  messageId: string,
  pricing: { category: string; billable: boolean | null; delivered: boolean },
): Promise<void> {
  const charge = pricing.delivered && pricing.billable !== false;
  await db.execute(
    sql`UPDATE message_job_recipients r
        SET pricing_category = coalesce(r.pricing_category, ${pricing.category}),
            cost_units = CASE WHEN ${charge} AND r.cost_units IS NULL
                              THEN (SELECT p.price_units FROM cloud_prices p WHERE p.category = ${pricing.category})
                              ELSE r.cost_units END
        WHERE r.session_id = ${sessionId} AND r.message_id = ${messageId}`,
  );
}
