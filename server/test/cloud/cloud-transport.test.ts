import { CLOUD_TEXTS, FAILURE_TEXTS } from '@wa/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphClient } from '../../src/transport/cloud/graph-client.ts';
import { memoryMessagingLimit } from '../../src/transport/cloud/tier-pool.ts';
import { CloudTransport } from '../../src/transport/cloud/transport.ts';
import { SendError } from '../../src/transport/types.ts';
import { approvedTemplate, type FakeGraphApi, startFakeGraphApi } from '../fakes/graph-api.ts';

const template = { kind: 'template' as const, name: 'order_update', language: 'en_US', parameters: ['A-1'] };

describe('CloudTransport against the fake Graph API', () => {
  let fake: FakeGraphApi;
  beforeAll(async () => {
    fake = await startFakeGraphApi({
      // Messaging limits page: a new portfolio's tier is 250 unique recipients in a moving 24 h.
      phone: { messaging_limit_tier: 'TIER_250' },
      templates: [approvedTemplate('order_update', 'en_US', 'UTILITY', 'Your order {{1}} has shipped.')],
    });
  });
  afterAll(() => fake.close());

  /** The people Meta said stopped marketing messages (onMarketingStopped). */
  const stoppedByMeta: string[] = [];
  const transport = (recent: Array<{ to: string; at: Date }>, wrote: string[] = []) =>
    new CloudTransport(
      { accountId: 's', phoneNumber: '919800015838' },
      {
        client: createGraphClient({ baseUrl: fake.baseUrl, accessToken: fake.accessToken }),
        phoneNumberId: fake.phoneNumberId,
        log: pino({ level: 'silent' }),
        tier: null,
        messagingLimit: memoryMessagingLimit(recent),
        inServiceWindow: async (to) => wrote.includes(to),
        onPhoneInfo: async () => {},
        onMarketingStopped: async (to) => {
          stoppedByMeta.push(to);
        },
      },
    );

  it('holds a new recipient beyond the 24-hour tier until the oldest leaves the window; known ones go on', async () => {
    const oldest = new Date(Date.now() - 20 * 3600_000);
    const recent = Array.from({ length: 250 }, (_, i) => ({
      to: `9198000${String(i).padStart(5, '0')}`,
      at: new Date(oldest.getTime() + i * 1000),
    }));
    const cloud = transport(recent);
    await cloud.connect();
    expect(cloud.state).toBe('open');
    const before = fake.sends.length;
    const err = await cloud.send('919811199999@s.whatsapp.net', template).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SendError);
    expect((err as SendError).code).toBe('rate-limited');
    expect((err as SendError).message).toBe(
      "Waiting: the account's limit of 250 recipients in 24 hours is reached",
    );
    expect((err as SendError).until?.getTime()).toBe(oldest.getTime() + 24 * 3600_000);
    expect(fake.sends.length).toBe(before);
    // A number already written to in the window does not count again.
    const sent = await cloud.send(`${recent[3]!.to}@s.whatsapp.net`, template);
    expect(sent.messageId).toMatch(/^wamid\./);
    await cloud.close();
  });

  it('maps Meta’s answers: 130429 and 131056 wait and retry, 131049 a day, 132000 and 131026 fail with the title', async () => {
    const cloud = transport([]);
    await cloud.connect();
    fake.state.recipientErrors = {
      '919811100041': { code: 130429 },
      '919811100042': { code: 131056 },
      '919811100043': { code: 131049 },
      '919811100044': { code: 131026 },
      '919811100046': { code: 131050 },
    };
    const outcome = async (to: string) => {
      const e = await cloud.send(`${to}@s.whatsapp.net`, template).catch((x: unknown) => x as SendError);
      return {
        code: (e as SendError).code,
        message: (e as SendError).message,
        wait: ((e as SendError).until?.getTime() ?? 0) - Date.now(),
      };
    };
    const throughput = await outcome('919811100041');
    expect(throughput.code).toBe('rate-limited');
    expect(throughput.wait).toBeGreaterThan(500);
    const pair = await outcome('919811100042');
    expect(pair).toMatchObject({
      code: 'rate-limited',
      message: '(Business Account, Consumer Account) pair rate limit hit',
    });
    expect(pair.wait).toBeGreaterThan(5000);
    const marketing = await outcome('919811100043');
    expect(marketing.code).toBe('retry-later');
    expect(marketing.wait).toBeGreaterThan(23.9 * 3600_000);
    expect(await outcome('919811100044')).toMatchObject({
      code: 'invalid',
      message: 'Message undeliverable',
    });
    // 131050: the person stopped this business's marketing messages: final, with the product's
    // text (never retried), and reported so that the next offer leaves them out.
    expect(await outcome('919811100046')).toMatchObject({
      code: 'invalid',
      message: FAILURE_TEXTS.marketingStopped,
    });
    expect(stoppedByMeta).toEqual(['919811100046']);
    const params = await cloud
      .send('919811100045@s.whatsapp.net', { ...template, parameters: [] })
      .catch((x: unknown) => x as SendError);
    expect(params).toMatchObject({
      code: 'invalid',
      message: 'Number of parameters does not match the expected number of params',
    });
    fake.state.recipientErrors = {};
    await cloud.close();
  });

  it('sends a text only to a number inside its 24-hour customer service window; others fail unsent', async () => {
    const cloud = transport([], ['919811100051']);
    await cloud.connect();
    const before = fake.sends.length;
    const inside = await cloud.send('919811100051@s.whatsapp.net', {
      kind: 'text',
      text: 'Your table is ready',
    });
    expect(inside.messageId).toMatch(/^wamid\./);
    const outside = await cloud
      .send('919811100052@s.whatsapp.net', { kind: 'text', text: 'Your table is ready' })
      .catch((x: unknown) => x as SendError);
    expect(outside).toBeInstanceOf(SendError);
    expect(outside).toMatchObject({ code: 'invalid', message: CLOUD_TEXTS.windowClosed });
    // Only the first reached Meta, as a text.
    expect(fake.sends.slice(before).map((x) => [x.to, x.body.type])).toEqual([['919811100051', 'text']]);
    await cloud.close();
  });

  it('closes for good with Meta’s text when the token is refused at connect', async () => {
    const cloud = transport([]);
    const closed = new Promise((resolve) =>
      cloud.on('connection', (u) => u.state === 'closed' && resolve(u)),
    );
    const token = fake.accessToken;
    fake.rotateToken('EAAJB-new');
    await cloud.connect();
    expect(await closed).toMatchObject({
      state: 'closed',
      willReconnect: false,
      reason: expect.stringMatching(/^Meta: Error validating access token/),
    });
    fake.rotateToken(token);
  });
});
