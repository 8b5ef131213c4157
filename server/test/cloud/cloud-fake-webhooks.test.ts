import { afterEach, describe, expect, it } from 'vitest';
import { createGraphClient } from '../../src/transport/cloud/graph-client.ts';
import { type CloudEvent, parseWebhook, statusRank } from '../../src/transport/cloud/webhook-events.ts';
import { checkWebhookSignature } from '../../src/transport/cloud/webhook-signature.ts';
import { approvedTemplate, type FakeGraphApi, startFakeGraphApi } from '../fakes/graph-api.ts';
import { type Reply, startReceiver } from '../fakes/webhook-receiver.ts';

/**
 * The fake's webhooks as the product's webhook route will take them: every call checked by its
 * signature, parsed into events, applied idempotently (a status only moves a message forward).
 */
const OFFER = approvedTemplate('diwali_offer', 'en', 'MARKETING', 'Hello {{1}}, 20% off this week.');

let fake: FakeGraphApi | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  await fake?.close();
  await receiver?.close();
  fake = undefined;
  receiver = undefined;
});

async function rig(
  webhook: { outOfOrder?: boolean; repeat?: number; read?: boolean } = {},
  script: Reply[] = [],
) {
  receiver = await startReceiver(script);
  fake = await startFakeGraphApi({
    templates: [OFFER],
    recipientErrors: {
      '919800000049': { code: 131049, via: 'webhook' },
      '919800000026': { code: 131026, via: 'webhook' },
    },
    webhook: { url: `${receiver.url}/api/cloud/webhook/s1`, retryDelayMs: 10, ...webhook },
  });
  const client = createGraphClient({ baseUrl: fake.baseUrl, accessToken: fake.accessToken });
  const send = (to: string) =>
    client.sendTemplate(fake!.phoneNumberId, to, {
      name: 'diwali_offer',
      language: 'en',
      bodyParameters: ['Asha'],
    });
  return { fake, receiver, send };
}

/** The events of every call the receiver took, refusing any whose signature does not hold. */
function received(): CloudEvent[] {
  return receiver!.calls.flatMap((call) => {
    expect(checkWebhookSignature(call.body, call.headers['x-hub-signature-256'], fake!.appSecret)).toBe('ok');
    const parsed = parseWebhook(JSON.parse(call.body));
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.events;
  });
}

/** What a recipient shows after applying the events in arrival order, ignoring those that do not move it forward. */
function apply(events: CloudEvent[]) {
  const state = new Map<string, { status: string; applied: number }>();
  for (const e of events) {
    if (e.kind !== 'status') continue;
    const now = state.get(e.messageId);
    if (now && statusRank(now.status as never) >= statusRank(e.status)) continue;
    state.set(e.messageId, { status: e.status, applied: (now?.applied ?? 0) + 1 });
  }
  return state;
}

describe('fake Graph API status webhooks', () => {
  it('POSTs sent, delivered and read, signed with the app secret, with the pricing category', async () => {
    const { send } = await rig();
    const { messageId } = await send('919800015838');
    await fake!.flush();
    const events = received();
    expect(events.map((e) => e.kind === 'status' && `${e.status}:${e.pricingCategory}`)).toEqual([
      'sent:marketing',
      'delivered:marketing',
      'read:null',
    ]);
    expect(
      events.every((e) => e.kind === 'status' && e.messageId === messageId && e.recipient === '919800015838'),
    ).toBe(true);
    expect(apply(events).get(messageId)).toEqual({ status: 'read', applied: 3 });
  });

  it('out of order and repeated deliveries still end at read, each forward step applied once', async () => {
    const { send } = await rig({ outOfOrder: true, repeat: 3 });
    const { messageId } = await send('919800015838');
    await fake!.flush();
    const events = received();
    expect(events.map((e) => e.kind === 'status' && e.status)).toEqual([
      'read',
      'read',
      'read',
      'delivered',
      'delivered',
      'delivered',
      'sent',
      'sent',
      'sent',
    ]);
    expect(apply(events).get(messageId)).toEqual({ status: 'read', applied: 1 });
    // Meta's own timestamps keep the true order whatever the arrival order.
    const times = events.map((e) => (e.kind === 'status' ? e.at.getTime() : 0));
    expect(times[0]).toBeGreaterThan(times[3]!);
    expect(times[3]).toBeGreaterThan(times[6]!);
  });

  it('a recipient Meta refuses after accepting gets one failed status with errors[].code', async () => {
    const { send } = await rig();
    const limited = await send('919800000049');
    const undeliverable = await send('919800000026');
    await fake!.flush();
    const failed = received().filter((e) => e.kind === 'status' && e.status === 'failed');
    expect(
      failed.map((e) => e.kind === 'status' && [e.messageId, e.errors.map((x) => [x.code, x.errorClass])]),
    ).toEqual([
      [limited.messageId, [[131049, 'retryAfter24h']]],
      [undeliverable.messageId, [[131026, 'final']]],
    ]);
  });

  it('retries a delivery the receiver did not take, with the same signed body', async () => {
    const { send } = await rig({ read: false }, [{ status: 500 }, { status: 503 }]);
    await send('919800015838');
    await fake!.flush();
    expect(fake!.webhookDeliveries.map((d) => d.status)).toEqual([500, 503, 200, 200]);
    expect(receiver!.calls[0]!.body).toBe(receiver!.calls[2]!.body);
    expect(received().map((e) => e.kind === 'status' && e.status)).toEqual([
      'sent',
      'sent',
      'sent',
      'delivered',
    ]);
  });

  it('an inbound message arrives as a signed messages webhook', async () => {
    await rig();
    fake!.sendInbound('919800015838', 'STOP', 'Ravi Kumar');
    await fake!.flush();
    expect(received()).toMatchObject([
      { kind: 'message', from: '919800015838', text: 'STOP', profileName: 'Ravi Kumar' },
    ]);
  });

  it('non-ASCII text is sent escaped, and the signature holds over those bytes', async () => {
    await rig();
    fake!.sendInbound('919800015838', 'धन्यवाद ₹500');
    await fake!.flush();
    expect(receiver!.calls[0]!.body).toContain('\\u0927');
    expect(received()).toMatchObject([{ text: 'धन्यवाद ₹500' }]);
  });
});
