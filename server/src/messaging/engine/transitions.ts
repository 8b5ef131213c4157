import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { ClaimScope } from '../limits/allowance.ts';
import { type Claimer, claimCtes, recordAndClaimBatch, type SentMessage } from './claim.ts';
import { hotRows } from './rules.ts';

/**
 * Every change of a recipient's state, and of its job's counters and status, as a named
 * transition (as Oban's engine callbacks: complete_job, cancel_job, snooze_job, retry_job). Each
 * is one statement carrying its side effects: the job's counters, the refund with its ledger row,
 * the auto-pause and the finishing rule (rules.ts). The engine's store, the jobs API, opt-outs,
 * failover and the demo seed compose these; nothing else writes a recipient's status.
 *
 * Lock order everywhere: jobs first (in id order), then their recipients.
 */

/** The ways recipients fail, with their refunds, are in fail-transitions.ts. */
export {
  expire,
  type FailedGroup,
  fail,
  failForbidden,
  failWhere,
  forbiddenWaiting,
  someForbiddenWaiting,
} from './fail-transitions.ts';
/** reassign, the failover of spread jobs' queued recipients, is in failover.ts. */
export { reassign } from './failover.ts';
/** The transitions of whole jobs (cancel, pause, resume, retry, reschedule) are in job-transitions.ts. */
export { cancel, pause, requeue, reschedule, resume, startOccurrence } from './job-transitions.ts';

/** `content`: this recipient's own text when the job is personalised (else null). */
/**
 * `messageId`: the id of an earlier attempt the socket cut before WhatsApp's ack (releaseUnacked):
 * the send goes again under it.
 */
export type ClaimedRecipient = {
  id: number;
  jobId: string;
  chatId: string;
  content: string | null;
  messageId?: string | null;
};

type ClaimRow = {
  id: number | string;
  job_id: string;
  chat_id: string;
  content: string | null;
  message_id?: string | null;
};
const toClaimed = (r: ClaimRow): ClaimedRecipient => ({
  id: Number(r.id),
  jobId: r.job_id,
  chatId: r.chat_id,
  content: r.content,
  messageId: r.message_id ?? null,
});

/**
 * claim: up to `limit` due recipients of an account become `sending` with this node's lease,
 * before anything is sent, in `scope` (allowance.ts: the warm-up's and the new-contact caps).
 */
export async function claim(
  db: Db,
  by: Claimer,
  accountId: string,
  limit: number,
  scope: ClaimScope,
): Promise<ClaimedRecipient[]> {
  const rows = await hotRows<ClaimRow>(
    db,
    `wa_claim_due_recipients_${scope}`,
    sql`WITH ${claimCtes(accountId, by, limit, scope)}
        SELECT id, job_id, chat_id, content, message_id FROM claimed ORDER BY id`,
  );
  return rows.map(toClaimed);
}

/**
 * recordSent, batched: the sent recipients given become `sent` (with their jobs' counters and the
 * transport's copies), and each account of `claimFor` claims its next `count` due recipients (one
 * by default; an account once in the list), all in one statement (one round trip per message when
 * unpaced). Returns the claims by account.
 */
export async function recordSent(
  db: Db,
  by: Claimer,
  sent: Array<{ id: number } & SentMessage>,
  claimFor: Array<{ accountId: string; scope: ClaimScope; count?: number }>,
): Promise<Map<string, ClaimedRecipient[]>> {
  const statement = recordAndClaimBatch(
    by,
    {
      ids: sent.map((x) => x.id),
      messageIds: sent.map((x) => x.messageId),
      sentTo: sent.map((x) => x.sentTo ?? null),
      kept: sent.map((x) => x.kept ?? null),
    },
    claimFor.map((c) => c.accountId),
    claimFor.map((c) => c.scope),
    claimFor.map((c) => c.count ?? 1),
  );
  const rows = await hotRows<ClaimRow & { session_id: string }>(db, 'wa_dispatch_tick', statement);
  const byAccount = new Map<string, ClaimedRecipient[]>();
  for (const r of rows) {
    const claimed = byAccount.get(r.session_id);
    if (claimed) claimed.push(toClaimed(r));
    else byAccount.set(r.session_id, [toClaimed(r)]);
  }
  return byAccount;
}

/** release: claimed recipients that were never handed to the transport go back in the queue. */
export async function release(db: Db, by: Claimer, recipientIds: number[]): Promise<void> {
  if (recipientIds.length === 0) return;
  await db.execute(
    sql`UPDATE message_job_recipients
        SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0),
            updated_at = now()
        WHERE id = ANY(${sql.param(recipientIds)}::bigint[]) AND status = 'sending' AND lease_owner = ${by.nodeId}`,
  );
}

/**
 * releaseUnacked: a recipient whose message the socket cut before WhatsApp's ack goes back in the
 * queue, not sent and not charged again, keeping the message's id: the next attempt sends it
 * under that id, so that WhatsApp can tell a copy it already took.
 */
export async function releaseUnacked(
  db: Db,
  by: Claimer,
  recipientId: number,
  messageId: string,
): Promise<void> {
  await db.execute(
    sql`UPDATE message_job_recipients
        SET status = 'queued', message_id = ${messageId}, lease_owner = NULL, lease_expires_at = NULL,
            attempts = greatest(attempts - 1, 0), updated_at = now()
        WHERE id = ${recipientId} AND status = 'sending' AND lease_owner = ${by.nodeId}`,
  );
}

/** After the send: undelivered and its cause, replied, and sent after all (engine/delivery.ts). */
export {
  answeredJob,
  markNewAccounts,
  noteUndeliveredCause,
  reply,
  sentAfterAll,
  sentAfterAllByCopies,
  undeliver,
} from './delivery.ts';
