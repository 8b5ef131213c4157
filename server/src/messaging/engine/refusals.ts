import { CLOUD_TEXTS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { CLOUD_RETRIES_MAX } from './cloud-transitions.ts';
import { reopenJob } from './rules.ts';
import { type FailedGroup, failWhere } from './transitions.ts';

/**
 * The transitions of a message WhatsApp refuses after the send resolved. A status never moves a
 * recipient backwards: only a recipient counted sent without receipts may still fail.
 */

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
function failable(accountId: string, messageId: string) {
  return sql`r.session_id = ${accountId} AND r.message_id = ${messageId} AND r.status = 'sent'
             AND r.delivered_at IS NULL AND r.read_at IS NULL
             AND r.sent_at > now() - make_interval(days => ${META_DELIVERY_DAYS})`;
}

/**
 * Where a `failed` status for `messageId` stands: 'open' (failable now), 'settled' (its recipient
 * is past where a failure may move it, or moved already), or null when no recipient has it yet.
 */
export async function failureStanding(
  db: Db,
  accountId: string,
  messageId: string,
): Promise<'open' | 'settled' | null> {
  const rows = await queryRows<{ open: boolean }>(
    db,
    sql`SELECT (${failable(accountId, messageId)}) AS open FROM message_job_recipients r
        WHERE r.session_id = ${accountId} AND r.message_id = ${messageId} LIMIT 1`,
  );
  if (rows.length === 0) return null;
  return rows[0]!.open ? 'open' : 'settled';
}

/**
 * refuse (WhatsApp refused a message after the send resolved: a linked phone's error status, a
 * Cloud API `failed` status): the recipients of `messageId` still failable fail with the reason,
 * move from their jobs' sent count to the failed one and are refunded, up to `limit` of them (a
 * Status post is one message id for its audience). `audit`: who reported it, when the refund must
 * be traceable (a webhook is signed with a secret the account's owner typed); the audit line is
 * written in the same transaction. Returns whether a recipient failed.
 */
export function refuse(
  db: Db,
  accountId: string,
  messageId: string,
  reason: string,
  limit: number,
  audit: string | null = null,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const failed = await failWhere(tx, failable(accountId, messageId), reason, reason, limit);
    if (audit) await auditRefunds(tx, audit, accountId, messageId, reason, failed);
    return failed.length > 0;
  });
}

/**
 * retrySent (a `failed` status webhook with 131049 for a failable message): the recipient is
 * queued again for `until` (its sent count moves back; a finished job reopens), up to
 * CLOUD_RETRIES_MAX times; beyond that it fails and is refunded (audited as `refuse`). Returns whether a
 * recipient matched.
 */
export async function retrySent(
  db: Db,
  accountId: string,
  messageId: string,
  until: Date,
  audit: string | null = null,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const jobs = await queryRows<{ job_id: string }>(
      tx,
      sql`SELECT r.job_id FROM message_job_recipients r WHERE ${failable(accountId, messageId)}`,
    );
    if (jobs.length === 0) return false;
    await tx.execute(sql`SELECT id FROM message_jobs WHERE id = ${jobs[0]!.job_id} FOR UPDATE`);
    const requeued = await queryRows<{ job_id: string }>(
      tx,
      sql`WITH r AS (
            UPDATE message_job_recipients r
            SET status = 'queued', due_at = ${until.toISOString()}::timestamptz, cloud_retries = cloud_retries + 1,
                sent_at = NULL, delivered_at = NULL, read_at = NULL, updated_at = now()
            WHERE ${failable(accountId, messageId)} AND r.cloud_retries < ${CLOUD_RETRIES_MAX}
            RETURNING r.id, r.job_id
          ), reopened AS (
            UPDATE message_jobs SET sent_count = sent_count - 1, ${reopenJob('processing')}
            WHERE id = (SELECT job_id FROM r)
            RETURNING id
          ) SELECT job_id FROM r`,
    );
    if (requeued.length > 0) return true;
    const failed = await failWhere(
      tx,
      failable(accountId, messageId),
      CLOUD_TEXTS.retriedOut,
      CLOUD_TEXTS.retriedOut,
      1,
    );
    if (audit) await auditRefunds(tx, audit, accountId, messageId, CLOUD_TEXTS.retriedOut, failed);
    return failed.length > 0;
  });
}

/** One audit line per job a reported refusal refunded credits to. */
async function auditRefunds(
  db: Db,
  by: string,
  accountId: string,
  messageId: string,
  reason: string,
  failed: FailedGroup[],
) {
  for (const g of failed) {
    if (g.credits <= 0) continue;
    await recordAudit(db, {
      actor: { id: null, username: by },
      action: 'credits.webhook-refund',
      targetUserId: g.userId,
      details: { sessionId: accountId, messageId, jobId: g.jobId, credits: g.credits, reason },
    });
  }
}
