import { jidUser } from '@wa/contract';
import { LRUCache } from 'lru-cache';
import { type CloudCredentials, cloudCredentials, graphClient } from '../../accounts/cloud/accounts.ts';
import { recordMarketingPreference } from '../../accounts/cloud/marketing-preferences.ts';
import { openServiceWindow } from '../../accounts/cloud/service-windows.ts';
import { findAccount } from '../../accounts/repository.ts';
import type { AppContext } from '../../context.ts';
import { batcher } from '../../db/batching.ts';
import { readCloudWebhook } from '../../transport/cloud/inbound.ts';
import { answerVerification } from '../../transport/cloud/webhook-signature.ts';
import type { AccountOutcome } from '../../transport/types.ts';
import { type TakenOutcome, takeOutcomes } from '../outcomes.ts';

export type WebhookAnswer = { status: number; body: string };

/**
 * `GET /api/cloud/webhook/:sessionId`: Meta's verification request (Webhooks, "Getting Started":
 * `hub.mode=subscribe`, `hub.verify_token` as entered in the App Dashboard, echo `hub.challenge`).
 */
export async function verifyWebhook(
  ctx: AppContext,
  accountId: string,
  query: Record<string, unknown>,
): Promise<WebhookAnswer> {
  const creds = await cloudCredentials(ctx.db, ctx.config.secretKey, accountId).catch(() => undefined);
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
  accountId: string,
  raw: Buffer,
  signatureHeader: string | undefined,
): Promise<WebhookAnswer> {
  const state = webhookState(ctx);
  const account = await state.accounts.fetch(accountId);
  if (!account) return { status: 401, body: 'Invalid signature' };
  const inbound = readCloudWebhook(account.creds, raw, signatureHeader);
  if (!inbound.ok) {
    if (inbound.status === 401) return { status: 401, body: 'Invalid signature' };
    // A 4xx would make Meta retry a payload that will never parse: taken, logged.
    ctx.log.warn({ accountId, error: inbound.error }, 'a Cloud API webhook was not in Meta’s shape');
    return { status: 200, body: 'OK' };
  }
  const { creds, userId } = account;
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
      await openServiceWindow(ctx.db, accountId, to, o.message.at!);
    named = [];
  }
  const taken = inbound.outcomes.map((outcome) => ({ account: { accountId, userId }, outcome }));
  const unmatched = await state.take({ taken, creds });
  // A status can come before its send is recorded (Meta answers the send, then the webhook races
  // our write): Meta delivers again on a non-2xx answer, and a repeat changes nothing.
  if (unmatched.some(({ outcome }) => outcomeAt(outcome) > Date.now() - EARLY_MS))
    return { status: 503, body: 'Not recorded yet: send again' };
  return { status: 200, body: 'OK' };
}

type WebhookItem = { taken: TakenOutcome[]; creds: CloudCredentials };

/** What a webhook needs of its account: its credentials (for the signature) and its owner. */
type WebhookAccount = { creds: CloudCredentials; userId: string };

/** This node's webhook state: the accounts webhooks came for, and the batches being taken. */
type WebhookState = {
  accounts: LRUCache<string, WebhookAccount>;
  take: (item: WebhookItem) => Promise<TakenOutcome[]>;
};

const stateOf = new WeakMap<AppContext, WebhookState>();

function webhookState(ctx: AppContext): WebhookState {
  let state = stateOf.get(ctx);
  if (!state) {
    state = { accounts: accountCache(ctx), take: outcomeBatches(ctx) };
    stateOf.set(ctx, state);
  }
  return state;
}

/**
 * The accounts webhooks came for, read from the database at most once a minute each (a busy
 * number's webhooks would otherwise read its credentials and account a few thousand times a
 * second). An account's credentials never change (connecting again makes a new account); a
 * removed account is forgotten when its minute is up.
 */
function accountCache(ctx: AppContext): LRUCache<string, WebhookAccount> {
  return new LRUCache<string, WebhookAccount>({
    max: 10_000,
    ttl: 60_000,
    fetchMethod: async (accountId) => {
      const creds = await cloudCredentials(ctx.db, ctx.config.secretKey, accountId).catch(() => undefined);
      const account = creds ? await findAccount(ctx.db, accountId) : undefined;
      return creds && account ? { creds, userId: account.userId } : undefined;
    },
  });
}

/**
 * The outcomes of the webhooks this node is answering, taken through the one door together: a
 * busy number's statuses (about three a message, at up to 1,000 messages a second) arrive as one
 * POST each, and taken one by one they queue on their job's row. Each request waits for the batch
 * that holds its outcomes, so that Meta is answered 200 only for what is written.
 */
function outcomeBatches(ctx: AppContext): (item: WebhookItem) => Promise<TakenOutcome[]> {
  return batcher<WebhookItem, TakenOutcome[]>(
    async (items) => {
      const clients = new Map(items.map((i) => [i.creds.accountId, i.creds]));
      const unmatched = new Set(
        await takeOutcomes(
          ctx,
          items.flatMap((i) => i.taken),
          {
            by: WEBHOOK_ACTOR,
            // Any node may write back: a Cloud API number is an HTTP client, not a socket this node must hold.
            answer: async ({ accountId }, to, text) => {
              const creds = clients.get(accountId)!;
              await graphClient(ctx.config, creds.accessToken).sendText(
                creds.phoneNumberId,
                jidUser(to),
                text,
              );
            },
          },
        ),
      );
      return items.map((i) => i.taken.filter((x) => unmatched.has(x)));
    },
    () => undefined,
  );
}

/** Who the audit log names for the refunds a Cloud API status webhook causes. */
const WEBHOOK_ACTOR = 'cloud-webhook';

/** A status about a message no recipient has yet is asked again while it is this recent. */
const EARLY_MS = 10 * 60_000;

/** When an unmatched outcome happened (a refusal carries no time: now, so it is asked again). */
const outcomeAt = (o: AccountOutcome) => (o.type === 'receipt' ? o.receipt.at.getTime() : Date.now());
