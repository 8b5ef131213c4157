import { jidUser } from '@wa/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../../metrics/metrics.ts';
import { SendError, type StatusPost, type Transport } from '../../transport/types.ts';
import { DISPATCH_MESSAGES, STATUS_MESSAGES } from '../messages.ts';
import type { ClaimedRecipient, DispatchStore } from './store-port.ts';
import { SEND_TIMED_OUT, withTimeout } from './timeout.ts';

/**
 * The most audience members one Status post goes to: rc14 sends the sender key to every device of
 * every member in the one stanza (Socket/messages-send.js relayMessage, isStatus), so a larger
 * audience goes as consecutive posts, each member in exactly one (docs/reach-and-consent-design.md R1).
 */
export const STATUS_BATCH = 500;

export type StatusBatchDeps = {
  store: DispatchStore;
  log: FastifyBaseLogger;
  metrics: Pick<Metrics, 'messages'>;
  sendTimeoutMs: number;
};

/**
 * Posts a Status job's next batch: `first` (claimed by the loop) and up to STATUS_BATCH - 1 more of
 * its due recipients, all claimed before the post. Numbers not on WhatsApp fail and are refunded;
 * the rest get one post and are recorded sent under its id. A post that fails fails (and refunds)
 * the batch; one refused before anything went (not connected, 429) puts it back in the queue.
 * 'session-down' when the account cannot send now.
 */
export async function postStatusBatch(
  deps: StatusBatchDeps,
  transport: Transport,
  sessionId: string,
  first: ClaimedRecipient,
  post: StatusPost,
): Promise<'sent' | 'failed' | 'session-down'> {
  const { store, log, metrics } = deps;
  const batch = [first, ...(await store.claimStatusBatch(sessionId, first.jobId, STATUS_BATCH - 1))];
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
  let result: Awaited<ReturnType<NonNullable<Transport['postStatus']>>>;
  try {
    result = await withTimeout(
      transport.postStatus(post, audience, { messageId: first.messageId ?? null }),
      deps.sendTimeoutMs,
    );
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
    log.warn({ sessionId, jobId: first.jobId, recipients: on.length, reason }, 'status post failed');
    await failAll(on, reason);
    return 'failed';
  }
  try {
    await store.recordStatusSent(
      on.map((r, i) => ({ id: r.id, sentTo: audience[i]! })),
      result,
    );
    metrics.messages.inc({ outcome: 'sent' }, on.length);
  } catch (err) {
    // Left `sending`: their lease runs out and they fail as 'delivery unknown', never posted again.
    log.error({ err, sessionId, jobId: first.jobId }, 'recording a status post failed');
  }
  return 'sent';
}
