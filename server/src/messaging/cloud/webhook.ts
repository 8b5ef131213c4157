import { jidUser } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { cloudCredentials, graphClient } from '../../sessions/cloud/accounts.ts';
import { recordMarketingPreference } from '../../sessions/cloud/marketing-preferences.ts';
import { openServiceWindow } from '../../sessions/cloud/service-windows.ts';
import { findSession } from '../../sessions/repository.ts';
import { readCloudWebhook } from '../../transport/cloud/inbound.ts';
import { answerVerification } from '../../transport/cloud/webhook-signature.ts';
import type { AccountOutcome } from '../../transport/types.ts';
import { takeOutcomes } from '../outcomes.ts';

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
 * `POST /api/cloud/webhook/:sessionId`: Meta's events, read by the Cloud API provider's inbound
 * adapter (signature checked over the raw bytes with the account's app secret; anything else is
 * 401 and changes nothing), then taken through the engine's one door for outcomes like a linked
 * phone's (idempotent: Meta delivers at least once and in no set order). A message opens the
 * number's 24-hour customer service window first, so that an opt-out's confirmation may be sent
 * back inside it. Runs on any node (principle 5): everything is written to the database here.
 */
export async function receiveWebhook(
  ctx: AppContext,
  sessionId: string,
  raw: Buffer,
  signatureHeader: string | undefined,
): Promise<WebhookAnswer> {
  const creds = await cloudCredentials(ctx.db, ctx.config.secretKey, sessionId).catch(() => undefined);
  if (!creds) return { status: 401, body: 'Invalid signature' };
  const inbound = readCloudWebhook(creds, raw, signatureHeader);
  if (!inbound.ok) {
    if (inbound.status === 401) return { status: 401, body: 'Invalid signature' };
    // A 4xx would make Meta retry a payload that will never parse: taken, logged.
    ctx.log.warn({ sessionId, error: inbound.error }, 'a Cloud API webhook was not in Meta’s shape');
    return { status: 200, body: 'OK' };
  }
  const session = await findSession(ctx.db, sessionId);
  if (!session) return { status: 200, body: 'OK' };
  // A stop or resume of marketing messages (user_preferences webhook, or a 131050 failure): the
  // business's later marketing templates leave the person out, or no longer do.
  for (const m of inbound.marketing)
    await recordMarketingPreference(ctx.db, {
      wabaId: m.wabaId,
      address: m.address,
      stopped: m.stopped,
      at: m.at,
      source: m.via === 'webhook' ? 'user_preferences' : 'error_131050',
    });
  // The window is the person's: opened under each address Meta named them by in the message
  // (reported together just before it), so that a reply may go to their number or their BSUID.
  let named: string[] = [];
  for (const o of inbound.outcomes) {
    if (o.type === 'same-person')
      named = o.addresses.filter((a) => a.kind === 'phone' || a.kind === 'bsuid').map((a) => a.value);
    if (o.type !== 'incoming') continue;
    for (const to of new Set([jidUser(o.message.from), ...named]))
      await openServiceWindow(ctx.db, sessionId, to, o.message.at!);
    named = [];
  }
  const client = graphClient(ctx.config, creds.accessToken);
  const account = { sessionId, userId: session.userId };
  const taken = inbound.outcomes.map((outcome) => ({ account, outcome }));
  const unmatched = await takeOutcomes(ctx, taken, {
    by: WEBHOOK_ACTOR,
    // Any node may write back: a Cloud API number is an HTTP client, not a socket this node must hold.
    answer: async (_account, to, text) => {
      await client.sendText(creds.phoneNumberId, jidUser(to), text);
    },
  });
  // A status can come before its send is recorded (Meta answers the send, then the webhook races
  // our write): Meta delivers again on a non-2xx answer, and a repeat changes nothing.
  if (unmatched.some(({ outcome }) => outcomeAt(outcome) > Date.now() - EARLY_MS))
    return { status: 503, body: 'Not recorded yet: send again' };
  return { status: 200, body: 'OK' };
}

/** Who the audit log names for the refunds a Cloud API status webhook causes. */
const WEBHOOK_ACTOR = 'cloud-webhook';

/** A status about a message no recipient has yet is asked again while it is this recent. */
const EARLY_MS = 10 * 60_000;

/** When an unmatched outcome happened (a refusal carries no time: now, so it is asked again). */
const outcomeAt = (o: AccountOutcome) => (o.type === 'receipt' ? o.receipt.at.getTime() : Date.now());
