import { type Address, chatIdOfAddress, FAILURE_TEXTS } from '@wa/contract';
import type { AccountOutcome } from '../types.ts';
import { GRAPH_ERROR } from './graph-errors.ts';
import { RETRY_AFTER_MS } from './transport.ts';
import { type CloudEvent, parseWebhook } from './webhook-events.ts';
import { checkWebhookSignature } from './webhook-signature.ts';

/** What a Cloud API number's webhook needs of its account: its secret and its number's id. */
export type CloudInboundAccount = { appSecret: string; phoneNumberId: string };

/** A person's word on the business's marketing messages: a `user_preferences` webhook, or a 131050 failure. */
export type MarketingWord = {
  wabaId: string;
  address: string;
  stopped: boolean;
  at: Date;
  via: '131050' | 'webhook';
};

export type CloudInbound =
  | { ok: true; outcomes: AccountOutcome[]; marketing: MarketingWord[] }
  /** Signed by someone else, or not signed: refused, nothing changes. */
  | { ok: false; status: 401 }
  /** Signed, but not in Meta's shape: taken (a 4xx would make Meta repeat it forever) and logged. */
  | { ok: false; status: 200; error: string };

/**
 * The Cloud API provider's inbound adapter: a `POST` to the account's webhook, checked by
 * `X-Hub-Signature-256` over the raw bytes with the app secret, read as the outcomes every
 * provider reports. Only events about this account's own number are kept. `now` is when the
 * webhook arrived (a 131049 recipient waits a day from then).
 */
export function readCloudWebhook(
  account: CloudInboundAccount,
  raw: Buffer,
  signatureHeader: string | undefined,
  now = Date.now(),
): CloudInbound {
  if (checkWebhookSignature(raw, signatureHeader, account.appSecret) !== 'ok')
    return { ok: false, status: 401 };
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    json = null;
  }
  const parsed = parseWebhook(json);
  if (!parsed.ok) return { ok: false, status: 200, error: parsed.error };
  const own = parsed.events.filter((e) => e.phoneNumberId === account.phoneNumberId);
  return { ok: true, outcomes: own.flatMap((e) => outcomesOf(e, now)), marketing: own.flatMap(marketingOf) };
}

function marketingOf(e: CloudEvent): MarketingWord[] {
  if (e.kind === 'preference')
    return [{ wabaId: e.wabaId, address: e.address, stopped: e.stopped, at: e.at, via: 'webhook' }];
  const address = e.kind === 'status' ? (e.recipient ?? e.recipientUserId) : null;
  if (
    e.kind === 'status' &&
    address &&
    e.status === 'failed' &&
    e.errors[0]?.code === GRAPH_ERROR.marketingStopped
  )
    return [{ wabaId: e.wabaId, address, stopped: true, at: e.at, via: '131050' }];
  return [];
}

function outcomesOf(e: CloudEvent, now: number): AccountOutcome[] {
  if (e.kind === 'preference') return [];
  if (e.kind === 'message') {
    // Meta's timestamp is in whole seconds: the message came within the second after it, which
    // may be the very second of the send it answers.
    const at = new Date(e.at.getTime() + 999);
    const addresses: Address[] = [];
    if (e.from) addresses.push({ kind: 'phone', value: e.from });
    if (e.fromUserId) addresses.push({ kind: 'bsuid', value: e.fromUserId });
    if (e.fromParentUserId) addresses.push({ kind: 'bsuid', value: e.fromParentUserId });
    if (e.username) addresses.push({ kind: 'username', value: e.username });
    // Reported under the number when Meta gives it, else under the BSUID (sendable from this account).
    const from = chatIdOfAddress(addresses[0]!)!;
    return [
      // Meta named these addresses together: one person (before the message, so that a STOP
      // from the BSUID finds the number's person).
      ...(addresses.length > 1 ? [{ type: 'same-person' as const, addresses }] : []),
      {
        type: 'incoming',
        message: {
          from,
          text: e.text,
          messageId: e.messageId,
          at,
          // Buttons and list rows are read as the text they show.
          type: e.text !== null ? 'text' : e.type,
          caption: e.caption,
          // The media id is the reference: the file is fetched through the Graph API (cloud-media.ts).
          media: e.media ? { mime: e.media.mime, fileName: e.media.fileName, ref: e.media.id } : null,
          name: e.profileName,
          answers: e.answers,
        },
      },
    ];
  }
  const out: AccountOutcome[] = [];
  const delivered = e.status === 'delivered' || e.status === 'read';
  if (e.pricingCategory)
    out.push({
      type: 'priced',
      messageId: e.messageId,
      category: e.pricingCategory,
      billable: e.billable,
      delivered,
    });
  if (delivered)
    out.push({
      type: 'receipt',
      receipt: { messageId: e.messageId, status: e.status as 'delivered' | 'read', at: e.at },
    });
  if (e.status === 'failed') {
    const error = e.errors[0];
    out.push({
      type: 'refused',
      messageId: e.messageId,
      // 131050 reads as the product's own text: a failure no retry may fix (NON_RETRYABLE_ERRORS).
      reason:
        error?.code === GRAPH_ERROR.marketingStopped
          ? FAILURE_TEXTS.marketingStopped
          : (error?.title ?? 'Failed (Meta gave no reason)'),
      retryAt: error?.errorClass === 'retryAfter24h' ? new Date(now + RETRY_AFTER_MS) : null,
    });
  }
  return out;
}
