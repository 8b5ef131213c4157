import { chatIdOfPhone } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { cloudCredentials } from '../../sessions/cloud/accounts.ts';
import { openServiceWindow } from '../../sessions/cloud/service-windows.ts';
import { findSession } from '../../sessions/repository.ts';
import { RETRY_AFTER_MS } from '../../transport/cloud/transport.ts';
import { type CloudStatusEvent, parseWebhook } from '../../transport/cloud/webhook-events.ts';
import { answerVerification, checkWebhookSignature } from '../../transport/cloud/webhook-signature.ts';
import { failByStatus, failureStanding, recordPricing, retrySent } from '../engine/cloud-transitions.ts';
import { applyReceipts } from '../engine/receipts.ts';
import { reply } from '../engine/transitions.ts';
import { receiveReply } from '../opt-outs.ts';

export type WebhookAnswer = { status: number; body: string };

/**
 * `GET /api/cloud/webhook/:sessionId`: Meta's verification request (Webhooks, "Getting Started":
 * `hub.mode=subscribe`, `hub.verify_token` as entered in the App Dashboard, echo `hub.challenge`).
 */
export async function verifyWebhook(
  ctx: AppContext,
  sessionId: string,
  query: Record<string, unknown>,
): Promise<WebhookAnswer> {
  const creds = await cloudCredentials(ctx.db, ctx.config.secretKey, sessionId).catch(() => undefined);
  const challenge = creds ? answerVerification(query, creds.verifyToken) : null;
  return challenge === null
    ? { status: 403, body: 'Verification failed: hub.verify_token is not this account’s' }
    : { status: 200, body: challenge };
}

/**
 * `POST /api/cloud/webhook/:sessionId`: Meta's events, checked by `X-Hub-Signature-256` over the
 * raw bytes with the account's app secret; anything else is 401 and changes nothing. Statuses
 * drive the recipients as receipts do for linked phones (idempotent: Meta delivers at least once
 * and in no set order); inbound messages are replies, and an opt-out keyword opts the number out.
 * Runs on any node (principle 5): everything is written to the database here.
 */
export async function receiveWebhook(
  ctx: AppContext,
  sessionId: string,
  raw: Buffer,
  signatureHeader: string | undefined,
): Promise<WebhookAnswer> {
  const creds = await cloudCredentials(ctx.db, ctx.config.secretKey, sessionId).catch(() => undefined);
  if (!creds || checkWebhookSignature(raw, signatureHeader, creds.appSecret) !== 'ok')
    return { status: 401, body: 'Invalid signature' };
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    json = null;
  }
  const parsed = parseWebhook(json);
  if (!parsed.ok) {
    // A 4xx would make Meta retry a payload that will never parse: taken, logged.
    ctx.log.warn({ sessionId, error: parsed.error }, 'a Cloud API webhook was not in Meta’s shape');
    return { status: 200, body: 'OK' };
  }
  const session = await findSession(ctx.db, sessionId);
  if (!session) return { status: 200, body: 'OK' };
  const events = parsed.events.filter((e) => e.phoneNumberId === creds.phoneNumberId);
  const statuses = events.filter((e): e is CloudStatusEvent => e.kind === 'status');
  // delivered and read through the engine's own receipts statement: a read before its
  // delivered sets both, a late delivered after read changes nothing, repeats change nothing.
  const receipts = statuses
    .filter((e) => e.status === 'delivered' || e.status === 'read')
    .map((e) => ({ sessionId, messageId: e.messageId, status: e.status as 'delivered' | 'read', at: e.at }));
  const unmatched = receipts.length > 0 ? await applyReceipts(ctx.db, receipts) : [];
  let early = unmatched.some((r) => r.at.getTime() > Date.now() - EARLY_MS);
  for (const e of statuses) {
    if (e.pricingCategory)
      await recordPricing(ctx.db, sessionId, e.messageId, {
        category: e.pricingCategory,
        billable: e.billable,
        delivered: e.status === 'delivered' || e.status === 'read',
      });
    if (
      e.status === 'failed' &&
      !(await applyFailure(ctx, sessionId, e)) &&
      e.at.getTime() > Date.now() - EARLY_MS
    )
      early = true;
  }
  for (const e of events) {
    if (e.kind !== 'message') continue;
    const chatId = chatIdOfPhone(e.from);
    // Any message from the number opens (or resets) its 24-hour customer service window.
    await openServiceWindow(ctx.db, sessionId, e.from, e.at);
    // One reply rule for both kinds of account (engine/delivery.ts); a reply without text (media) is kept as ''.
    // Meta's timestamp is in whole seconds: the reply came within the second after it, which may
    // be the very second of the send it answers.
    await reply(ctx.db, sessionId, chatId, e.text ?? '', new Date(e.at.getTime() + 999));
    if (e.text !== null) {
      const optedOut = await receiveReply(ctx, session.userId, { from: chatId, text: e.text });
      if (optedOut) ctx.log.info({ sessionId, from: e.from }, 'opt-out keyword received: number opted out');
    }
  }
  // A status can come before its send is recorded (Meta answers the send, then the webhook races
  // our write): Meta delivers again on a non-2xx answer, and a repeat changes nothing.
  if (early) return { status: 503, body: 'Not recorded yet: send again' };
  return { status: 200, body: 'OK' };
}

/** A status about a message no recipient has yet is asked again while it is this recent. */
const EARLY_MS = 10 * 60_000;

/**
 * A `failed` status: 131049 (Meta's per-user marketing limit) waits a day and is sent again (twice
 * at most); anything else fails the recipient with Meta's title, refunded. Only a recipient still
 * counted sent without a receipt changes (engine/cloud-transitions.ts, failable); a repeat of the
 * same failure, or a failure after delivered or read, changes nothing. Returns whether the status
 * was applied or had nothing left to change; false when no recipient has the message id (the send
 * not recorded yet: Meta is asked to deliver it again).
 *
 * The transition and the send's own record race: the transition can read the recipient while it
 * is still 'sending' (or skip its row while the record holds it) and match nothing, and the record
 * commits a moment later. So the standing is read after the transition: a recipient still failable
 * means the transition missed it, and it runs again.
 */
async function applyFailure(ctx: AppContext, sessionId: string, e: CloudStatusEvent): Promise<boolean> {
  const error = e.errors[0];
  const reason = error?.title ?? 'Failed (Meta gave no reason)';
  const transition = () =>
    error?.errorClass === 'retryAfter24h'
      ? retrySent(ctx.db, sessionId, e.messageId, new Date(Date.now() + RETRY_AFTER_MS))
      : failByStatus(ctx.db, sessionId, e.messageId, reason);
  for (let attempt = 0; attempt < FAILURE_ATTEMPTS; attempt++) {
    if (await transition()) return true;
    const standing = await failureStanding(ctx.db, sessionId, e.messageId);
    if (standing === null) return false;
    if (standing === 'settled') return true;
  }
  return false;
}

/** Runs of a failure's transition that may find its recipient just recorded sent. */
const FAILURE_ATTEMPTS = 3;
