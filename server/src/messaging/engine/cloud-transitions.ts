import { CLOUD_TEXTS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import type { Claimer } from './claim.ts';
import { fail } from './transitions.ts';

/**
 * The Cloud API's own transitions of a recipient, beside transitions.ts and in its
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

/** Meta's pricing of one message, from one of its status webhooks. */
export type MessagePricing = {
  accountId: string;
  messageId: string;
  category: string;
  billable: boolean | null;
  delivered: boolean;
};

/**
 * Meta's pricing of messages (status webhooks), a batch in one statement: the category from the
 * first status that names one; the cost (the category's price) once it is delivered and billable,
 * set once. Several statuses of one message in the batch count as one (delivered if any is).
 * Recipients are locked in id order, as the other batch transitions lock them.
 */
export async function recordPricing(db: Db, pricings: MessagePricing[]): Promise<void> {
  if (pricings.length === 0) return;
  const charge = pricings.map((p) => p.delivered && p.billable !== false);
  await db.execute(
    sql`WITH u AS (
          SELECT session_id, message_id, min(category) AS category, bool_or(charge) AS charge
          FROM unnest(${sql.param(pricings.map((p) => p.accountId))}::text[],
                      ${sql.param(pricings.map((p) => p.messageId))}::text[],
                      ${sql.param(pricings.map((p) => p.category))}::text[],
                      ${sql.param(charge)}::boolean[]) AS u(session_id, message_id, category, charge)
          GROUP BY session_id, message_id
        ), target AS MATERIALIZED (
          SELECT m.id, u.category, u.charge FROM u CROSS JOIN LATERAL (
            SELECT r.id FROM message_job_recipients r
            WHERE r.session_id = u.session_id AND r.message_id = u.message_id
            OFFSET 0 -- one probe of the message index per status
          ) m
        ), locked AS MATERIALIZED (
          SELECT r.id FROM message_job_recipients r
          WHERE r.id = ANY (ARRAY(SELECT id FROM target)) ORDER BY r.id FOR NO KEY UPDATE OF r
        )
        UPDATE message_job_recipients r
        SET pricing_category = coalesce(r.pricing_category, t.category),
            cost_units = CASE WHEN t.charge AND r.cost_units IS NULL
                              THEN (SELECT p.price_units FROM cloud_prices p WHERE p.category = t.category)
                              ELSE r.cost_units END
        FROM target t
        WHERE r.id = t.id AND (SELECT count(*) FROM locked) >= 0`,
  );
}
