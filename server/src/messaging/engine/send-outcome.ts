import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../../metrics/metrics.ts';
import { type OutgoingMessage, SendError, type SendResult, type Transport } from '../../transport/types.ts';
import { withContent } from '../compose.ts';
import type { ClaimScope } from '../limits/allowance.ts';
import { DISPATCH_MESSAGES } from '../messages.ts';
import type { SentMessage } from './claim.ts';
import type { ClaimedRecipient, DispatchStore } from './store-port.ts';
import { HELD_AT_LAST_MOMENT, SEND_TIMED_OUT, withTimeout } from './timeout.ts';

/** What recording one send's outcome needs: the store, this node's log and counters, the send timeout. */
export type OutcomeDeps = {
  store: DispatchStore;
  log: FastifyBaseLogger;
  /** This process's counters: outcomes recorded and the transport's send time. */
  metrics: Pick<Metrics, 'messages' | 'sendDuration'>;
  /** SEND_TIMEOUT_MS: the longest a send may take; then it is an outcome (delivery unknown), not a hang. */
  sendTimeoutMs: number;
};

/**
 * Where one send left the loop: sent (with the next recipient, when it was claimed with the
 * record), failed, the account paused (463), the account down (refused before sending: the
 * recipient waits) or held by the policy at the last moment.
 */
export type SendOutcome = { next: ClaimedRecipient | null } | 'failed' | 'paused' | 'session-down' | 'held';

/**
 * Hands one claimed recipient to the transport, within the send timeout (lengthened by the
 * `typing` its beforeRelay waits). WhatsApp's answer is the send's result; every other end (timed
 * out, refused, deferred, failed, held at the last moment) is recorded here through the store's
 * transitions and returned as the loop's outcome.
 */
export async function attemptSend(
  deps: OutcomeDeps,
  accountId: string,
  transport: Transport,
  r: ClaimedRecipient,
  message: OutgoingMessage,
  typing?: { beforeRelay: (chatId: string) => Promise<void>; ms: number },
): Promise<{ sent: SendResult } | SendOutcome> {
  const { store, log } = deps;
  const endTimer = deps.metrics.sendDuration.startTimer();
  let sending: Promise<SendResult> | undefined;
  try {
    // An account that cannot send templates (a linked phone sharing a template job) sends
    // the recipient's text: the template's body with its values, rendered at acceptance.
    const outgoing =
      message.kind === 'template' && transport.capabilities?.templates !== true
        ? { kind: 'text' as const, text: r.content ?? '' }
        : withContent(message, r.content);
    sending = transport.send(r.chatId, outgoing, {
      messageId: r.messageId ?? null,
      ...(typing ? { beforeRelay: typing.beforeRelay } : {}),
    });
    const sent = await withTimeout(sending, deps.sendTimeoutMs + (typing?.ms ?? 0));
    endTimer();
    return { sent };
  } catch (err) {
    endTimer();
    if (err === HELD_AT_LAST_MOMENT) {
      // The policy holds the account (quiet hours began while typing): nothing went, it waits.
      await store.release([r.id]);
      return 'held';
    }
    if (err === SEND_TIMED_OUT && sending) {
      log.warn({ accountId, recipient: r.id, timeoutMs: deps.sendTimeoutMs }, 'send timed out');
      const failed = recordFailure(deps, accountId, r, DISPATCH_MESSAGES.sendTimedOut);
      const late = sending.then((result) => [
        { id: r.id, messageId: result.messageId, sentTo: result.chatId, kept: result.kept },
      ]);
      answeredLate(deps, accountId, late, failed);
      await failed;
      return 'failed';
    }
    if (err instanceof SendError && err.code === 'retry-later' && err.until) {
      // Meta's per-user marketing limit (131049): this recipient waits a day, a limited number of times.
      await store.retryLater(r.id, err.until, err.message);
      return { next: null };
    }
    if (err instanceof SendError && err.retriesLater && err.until) {
      // Nothing was sent and the transport said until when (the Cloud API tier, Meta's backoff):
      // this recipient waits until then, the others go on.
      await store.defer([r.id], err.until);
      return { next: null };
    }
    if (err instanceof SendError && err.retriesLater) {
      // The transport refused before sending anything (not connected, or WhatsApp's 429), or the
      // socket closed before WhatsApp acked the message (not sent: it goes again under its id):
      // the recipient waits.
      if (err.messageId) await store.releaseUnacked(r.id, err.messageId);
      else await store.release([r.id]);
      if (err.code === 'rate-limited')
        await store.noteRateLimited(accountId).catch((e) => log.warn({ err: e, accountId }, 'noting a 429'));
      return 'session-down';
    }
    if (err instanceof SendError && err.pausesAccount) {
      // Sent and refused (463): never retried automatically.
      await recordFailure(deps, accountId, r, err.message);
      await pauseDirect(deps, accountId, err);
      return 'paused';
    }
    const reason =
      err instanceof SendError
        ? err.code === 'not-on-whatsapp'
          ? DISPATCH_MESSAGES.notOnWhatsApp
          : err.message
        : `Send failed: ${(err as Error).message ?? String(err)}`;
    await recordFailure(deps, accountId, r, reason);
    return 'failed';
  }
}

/**
 * Records a message WhatsApp took. With `claimFor`, the same statement claims that account's
 * next due recipient within `scope` (groups only while the warm-up holds one-to-one chats; known
 * numbers only once the day's new contacts are reached).
 */
export async function recordSent(
  deps: OutcomeDeps,
  accountId: string,
  r: ClaimedRecipient,
  result: SendResult,
  claimFor: string | undefined,
  scope: ClaimScope,
): Promise<{ next: ClaimedRecipient | null }> {
  try {
    const next = await deps.store.recordSent(
      r.id,
      { messageId: result.messageId, sentTo: result.chatId, kept: result.kept },
      claimFor,
      scope,
    );
    deps.metrics.messages.inc({ outcome: 'sent' });
    return { next };
  } catch (err) {
    // Left `sending`: its lease runs out and it fails as 'delivery unknown', never re-sent.
    deps.log.error({ err, accountId, recipient: r.id }, 'recording a sent message failed');
    return { next: null };
  }
}

/** Records a failed send (refunded by the transition); a failure to record it is logged, the lease then ends it. */
export async function recordFailure(
  deps: OutcomeDeps,
  accountId: string,
  r: ClaimedRecipient,
  error: string,
): Promise<void> {
  try {
    await deps.store.fail(r.id, error);
    deps.metrics.messages.inc({ outcome: 'failed' });
  } catch (err) {
    deps.log.error({ err, accountId, recipient: r.id }, 'recording a failed send failed');
  }
}

/**
 * A send that timed out goes on inside the transport: when it resolves after all, WhatsApp took
 * the message, so the recipients recorded failed (and refunded) become sent, their refunds
 * reversed, in one statement (sentAfterAll). After the failure is recorded. `late` gives the rows
 * the answer makes sent: one for a message, the audience for a Status post (status-batch.ts).
 */
export function answeredLate(
  deps: { store: DispatchStore; log: FastifyBaseLogger; metrics: Pick<Metrics, 'messages'> },
  accountId: string,
  late: Promise<Array<{ id: number } & SentMessage>>,
  failed: Promise<void>,
): void {
  const { store, log, metrics } = deps;
  late
    .then(
      async (rows) => {
        await failed;
        const sent = await store.recordSentAfterAll(rows);
        if (sent === 0) return;
        metrics.messages.inc({ outcome: 'sent' }, sent);
        log.info(
          { accountId, recipients: rows.map((r) => r.id), messageId: rows[0]?.messageId },
          'a send that timed out was sent after all: refund reversed',
        );
      },
      () => {},
    )
    .catch((err: unknown) => log.error({ err, accountId }, 'recording a late send failed'));
}

/** WhatsApp restricts the account's new one-to-one chats: those wait, group sends go on. */
async function pauseDirect(deps: OutcomeDeps, accountId: string, err: SendError): Promise<void> {
  await deps.store.pauseAccount(accountId, err.message, err.until);
  deps.log.warn(
    { accountId, code: err.code, reason: err.message, until: err.until },
    'one-to-one sends paused',
  );
}
