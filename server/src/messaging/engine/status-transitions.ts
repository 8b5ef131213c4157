import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import type { Claimer, SentMessage } from './claim.ts';
import { ms } from './rules.ts';
import type { ClaimedRecipient, FailedGroup } from './transitions.ts';
import * as t from './transitions.ts';

/**
 * The statements of a Status post: one WhatsApp send for many recipients of one job,
 * each recipient still claimed (`sending`, with this node's lease) before the post, so that none
 * is posted to twice.
 */

/** Claims every other due recipient of the status job `jobId` on `accountId`: one post goes to them all. */
export async function claimStatusBatch(
  db: Db,
  by: Claimer,
  accountId: string,
  jobId: string,
): Promise<ClaimedRecipient[]> {
  // The job first, as every writer locks it (claim.ts): a delete or a retry waits for this.
  const rows = await queryRows<{
    id: number | string;
    job_id: string;
    chat_id: string;
    content: string | null;
  }>(
    db,
    sql`WITH locked AS MATERIALIZED (
          SELECT j.id FROM message_jobs j WHERE j.id = ${jobId} FOR NO KEY UPDATE OF j
        ), due AS (
          SELECT r.id FROM message_job_recipients r
          WHERE r.session_id = ${accountId} AND r.job_id = ${jobId} AND r.status = 'queued'
            AND r.due_at <= now() AND (SELECT count(*) FROM locked) >= 0
          ORDER BY r.id
          FOR UPDATE SKIP LOCKED
        )
        UPDATE message_job_recipients r
        SET status = 'sending', lease_owner = ${by.nodeId}, lease_expires_at = now() + ${ms(by.leaseMs)},
            attempts = r.attempts + 1, updated_at = now()
        FROM due WHERE r.id = due.id
        RETURNING r.id, r.job_id, r.chat_id, r.content`,
  );
  return rows.map((r) => ({ id: Number(r.id), jobId: r.job_id, chatId: r.chat_id, content: r.content }));
}

/** Every recipient of a post is sent under the post's one message id (its copy with one of them), in one statement. */
export async function recordStatusSent(
  db: Db,
  by: Claimer,
  sent: Array<{ id: number } & SentMessage>,
): Promise<void> {
  await t.recordSent(db, by, sent, []);
}

/** Recipients of a post this node is sending fail with `error` and are refunded, in one transaction. */
export function failStatusRecipients(
  db: Db,
  by: Claimer,
  ids: number[],
  error: string,
): Promise<FailedGroup[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.transaction((tx) =>
    t.failWhere(
      tx,
      sql`r.id = ANY(${sql.param(ids)}::bigint[]) AND r.status = 'sending' AND r.lease_owner = ${by.nodeId}`,
      error,
      error,
      ids.length,
    ),
  );
}
