import { jidUser } from '@wa/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../../metrics/metrics.ts';
import { SendError, type StatusPost, type StatusResult, type Transport } from '../../transport/types.ts';
import { DISPATCH_MESSAGES, STATUS_MESSAGES } from '../messages.ts';
import { answeredLate } from './send-outcome.ts';
import type { ClaimedRecipient, DispatchStore } from './store-port.ts';
import { SEND_TIMED_OUT, withTimeout } from './timeout.ts';

export type StatusBatchDeps = {
  store: DispatchStore;
  log: FastifyBaseLogger;
  metrics: Pick<Metrics, 'messages'>;
  sendTimeoutMs: number;
};

/**
 * Posts a Status job to its whole audience: `first` (claimed by the loop) and every other due
 * recipient of the job, all claimed before the post. WhatsApp has a Status as one message to
 * everyone who may see it: one stanza, one id, the sender key to every device of the audience
 * (rc14 Socket/messages-send.js relayMessage with `statusJidList`; whatsmeow send.go sends
 * status@broadcast as one group-style message to the whole list). Numbers not on WhatsApp, and
 * those the transport could not address (no LID), fail and are refunded; the rest are recorded
 * sent under the post's id. A post that fails fails (and refunds) them; one refused before
 * anything went (not connected, 429) puts them back in the queue; one that outlasts the send
 * timeout fails 'delivery unknown' and becomes sent if WhatsApp takes it after all, as a message
 * does (send-outcome.ts answeredLate). 'session-down' when the account cannot send now.
 */
export async function postStatusBatch(
  deps: StatusBatchDeps,
  transport: Transport,
  accountId: string,
  first: ClaimedRecipient,
  post: StatusPost,
): Promise<'sent' | 'failed' | 'session-down'> {
  const { store, log, metrics } = deps;
  const batch = [first, ...(await store.claimStatusBatch(accountId, first.jobId))];
  const ids = batch.map((r) => r.id);
  const failAll = async (rows: ClaimedRecipient[], reason: string) => {
    await store.failStatusRecipients(
      rows.map((r) => r.id),
      reason,
    );
    metrics.messages.inc({ outcome: 'failed' }, rows.length);
  };
  if (!transport.postStatus) {
    await failAll(batch, STATUS_MESSAGES.cannotPost);
    return 'failed';
  }
  let found: Map<string, string | null>;
  try {
    found = await transport.onWhatsApp(batch.map((r) => jidUser(r.chatId)));
  } catch (err) {
    if (err instanceof SendError && err.retriesLater) {
      await store.release(ids);
      return 'session-down';
    }
    await failAll(batch, `Send failed: ${(err as Error).message ?? String(err)}`);
    return 'failed';
  }
  const on = batch.filter((r) => found.get(jidUser(r.chatId)));
  await failAll(
    batch.filter((r) => !found.get(jidUser(r.chatId))),
    DISPATCH_MESSAGES.notOnWhatsApp,
  );
  if (on.length === 0) return 'failed';
  const audience = on.map((r) => found.get(jidUser(r.chatId))!);
  let result: StatusResult;
  const posting = transport.postStatus(post, audience, { messageId: first.messageId ?? null });
  /** The members WhatsApp took the post for, as sent rows (its copy kept once, with the first). */
  const sentRows = (r: StatusResult) => {
    const leftOut = new Set(r.leftOut ?? []);
    return on
      .map((row, i) => ({ id: row.id, messageId: r.messageId, sentTo: audience[i]! }))
      .filter((row) => !leftOut.has(row.sentTo))
      .map((row, i) => ({ ...row, kept: i === 0 ? r.kept : undefined }));
  };
  try {
    result = await withTimeout(posting, deps.sendTimeoutMs);
  } catch (err) {
    if (err instanceof SendError && err.retriesLater) {
      // Cut before the server's ack: the post goes again under its id (send-outcome.ts does the same).
      const { messageId } = err;
      if (messageId) for (const r of on) await store.releaseUnacked(r.id, messageId);
      else await store.release(on.map((r) => r.id));
      return 'session-down';
    }
    const reason =
      err === SEND_TIMED_OUT
        ? DISPATCH_MESSAGES.sendTimedOut
        : err instanceof SendError
          ? err.message
          : `Send failed: ${(err as Error).message ?? String(err)}`;
    log.warn({ accountId, jobId: first.jobId, recipients: on.length, reason }, 'status post failed');
    const failed = failAll(on, reason);
    if (err === SEND_TIMED_OUT) answeredLate(deps, accountId, posting.then(sentRows), failed);
    await failed;
    return 'failed';
  }
  const sent = sentRows(result);
  const sentIds = new Set(sent.map((r) => r.id));
  await failAll(
    on.filter((r) => !sentIds.has(r.id)),
    STATUS_MESSAGES.noLid,
  );
  if (sent.length === 0) return 'failed';
  try {
    await store.recordStatusSent(sent);
    metrics.messages.inc({ outcome: 'sent' }, sent.length);
  } catch (err) {
    // Left `sending`: their lease runs out and they fail as 'delivery unknown', never posted again.
    log.error({ err, accountId, jobId: first.jobId }, 'recording a status post failed');
  }
  return 'sent';
}
