import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGraphClient } from '../../src/transport/cloud/graph-client.ts';
import { GraphApiError } from '../../src/transport/cloud/graph-errors.ts';
import { summarizeTemplate } from '../../src/transport/cloud/templates.ts';
import {
  approvedTemplate,
  type FakeGraphApi,
  type FakeTemplate,
  startFakeGraphApi,
} from '../fakes/graph-api.ts';

const ORDER: FakeTemplate = {
  name: 'order_update',
  language: 'en',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [
    { type: 'HEADER', format: 'IMAGE' },
    { type: 'BODY', text: 'Hi {{1}}, your order {{2}} ships today. Thanks {{1}}!' },
  ],
};
const OFFER = approvedTemplate('diwali_offer', 'en', 'MARKETING', 'Hello {{1}}, 20% off this week.');

let fake: FakeGraphApi;
afterEach(async () => {
  await fake?.close();
});

function clientFor(f: FakeGraphApi, token = f.accessToken) {
  return createGraphClient({ baseUrl: f.baseUrl, accessToken: token });
}

async function refusal(promise: Promise<unknown>): Promise<GraphApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GraphApiError);
  return error as GraphApiError;
}

describe('Graph API client against the fake Graph API', () => {
  it('reads the phone number: display number, verified name, quality rating, limit tier, throughput', async () => {
    fake = await startFakeGraphApi({ phone: { quality_rating: 'YELLOW', messaging_limit_tier: 'TIER_10K' } });
    const info = await clientFor(fake).getPhoneNumber(fake.phoneNumberId);
    expect(info).toEqual({
      id: fake.phoneNumberId,
      displayPhoneNumber: '+91 98000 15838',
      verifiedName: 'Lucky Shrub',
      qualityRating: 'YELLOW',
      messagingLimitTier: 'TIER_10K',
      throughputLevel: 'STANDARD',
    });
    expect(fake.calls[0]!.query.get('fields')).toBe(
      'id,display_phone_number,verified_name,quality_rating,whatsapp_business_manager_messaging_limit,throughput',
    );
    expect(fake.calls[0]!.authorization).toBe(`Bearer ${fake.accessToken}`);
  });

  it('an unknown phone number id is a final error with Meta text; a wrong token is an auth error', async () => {
    fake = await startFakeGraphApi();
    const unknown = await refusal(clientFor(fake).getPhoneNumber('999999'));
    expect(unknown).toMatchObject({ code: 100, errorClass: 'final', httpStatus: 400 });
    expect(unknown.title).toContain("Unsupported get request. Object with ID '999999' does not exist");
    const expired = await refusal(clientFor(fake, 'EAA-old').getPhoneNumber(fake.phoneNumberId));
    expect(expired).toMatchObject({ code: 190, errorClass: 'auth', httpStatus: 401 });
    expect(expired.message).toContain('Error validating access token: Session has expired');
  });

  it('lists every template across pages by the after cursor, at its own base URL', async () => {
    const templates: FakeTemplate[] = Array.from({ length: 7 }, (_, i) => ({
      ...OFFER,
      name: `offer_${i}`,
      status: i === 3 ? 'PENDING' : 'APPROVED',
    }));
    fake = await startFakeGraphApi({ templates });
    const listed = await clientFor(fake).listTemplates(fake.wabaId, 3);
    expect(listed.map((t) => `${t.name}:${t.status}`)).toEqual([
      'offer_0:APPROVED',
      'offer_1:APPROVED',
      'offer_2:APPROVED',
      'offer_3:PENDING',
      'offer_4:APPROVED',
      'offer_5:APPROVED',
      'offer_6:APPROVED',
    ]);
    const pages = fake.calls.filter((c) => c.path.endsWith('/message_templates'));
    expect(pages.map((c) => c.query.get('after'))).toEqual([null, 'Mw', 'Ng']);
  });

  it('summarises a template: body text, its variables once each, the header the send must fill', async () => {
    fake = await startFakeGraphApi({ templates: [ORDER] });
    const [order] = await clientFor(fake).listTemplates(fake.wabaId);
    expect(summarizeTemplate(order!)).toMatchObject({
      name: 'order_update',
      category: 'UTILITY',
      status: 'APPROVED',
      parameters: ['1', '2'],
      parameterCount: 2,
      headerFormat: 'IMAGE',
      named: false,
    });
  });

  it('sends a template: messaging_product, E.164 digits, body parameters and header media; answers messages[0].id', async () => {
    fake = await startFakeGraphApi({ templates: [ORDER] });
    const sent = await clientFor(fake).sendTemplate(fake.phoneNumberId, '919800015838@s.whatsapp.net', {
      name: 'order_update',
      language: 'en',
      bodyParameters: ['Asha', 'ORD-9271'],
      header: { kind: 'image', link: 'https://example.com/box.jpg' },
    });
    expect(sent.messageId).toBe(fake.sends[0]!.messageId);
    expect(sent).toMatchObject({ waId: '919800015838', messageStatus: 'accepted' });
    expect(fake.sends[0]!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '919800015838',
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'en' },
        components: [
          { type: 'header', parameters: [{ type: 'image', image: { link: 'https://example.com/box.jpg' } }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Asha' },
              { type: 'text', text: 'ORD-9271' },
            ],
          },
        ],
      },
    });
  });

  it('sends a text inside the window', async () => {
    fake = await startFakeGraphApi();
    const sent = await clientFor(fake).sendText(
      fake.phoneNumberId,
      '+919800015838',
      'Thanks, your refund is on its way',
    );
    expect(sent.messageId).toMatch(/^wamid\./);
    expect(fake.sends[0]!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '919800015838',
      type: 'text',
      text: { preview_url: false, body: 'Thanks, your refund is on its way' },
    });
  });

  it('refuses a number that is not one before calling Meta', async () => {
    fake = await startFakeGraphApi();
    await expect(clientFor(fake).sendText(fake.phoneNumberId, '12ab', 'hi')).rejects.toThrow(
      'Not a phone number in international form: 12ab',
    );
    expect(fake.sends).toEqual([]);
  });

  it.each([
    [131049, 'retryAfter24h', 'This message was not delivered to maintain healthy ecosystem engagement.'],
    [130429, 'backoff', 'Rate limit hit'],
    [131056, 'backoff', '(Business Account, Consumer Account) pair rate limit hit'],
    [131026, 'final', 'Message undeliverable'],
    [131047, 'final', 'Re-engagement message'],
    [100, 'final', 'Invalid parameter'],
  ] as const)('Meta error %i is class %s with its title and details', async (code, errorClass, title) => {
    fake = await startFakeGraphApi({ templates: [OFFER], recipientErrors: { '919800000001': { code } } });
    const error = await refusal(
      clientFor(fake).sendTemplate(fake.phoneNumberId, '919800000001', {
        name: 'diwali_offer',
        language: 'en',
        bodyParameters: ['Asha'],
      }),
    );
    expect(error).toMatchObject({ code, errorClass, title });
    expect(error.details).not.toBeNull();
    expect(error.traceId).not.toBeNull();
  });

  it('a template send with the wrong number of body values is 132000, final, with Meta details', async () => {
    fake = await startFakeGraphApi({ templates: [OFFER] });
    const error = await refusal(
      clientFor(fake).sendTemplate(fake.phoneNumberId, '919800015838', {
        name: 'diwali_offer',
        language: 'en',
        bodyParameters: ['Asha', 'extra'],
      }),
    );
    expect(error).toMatchObject({ code: 132000, errorClass: 'final' });
    expect(error.details).toBe(
      'body: number of localizable_params (2) does not match the expected number of params (1)',
    );
  });

  it('a template that is not approved, or a header left empty, is refused by Meta as final', async () => {
    fake = await startFakeGraphApi({ templates: [ORDER, { ...OFFER, status: 'PAUSED' }] });
    const client = clientFor(fake);
    const paused = await refusal(
      client.sendTemplate(fake.phoneNumberId, '919800015838', {
        name: 'diwali_offer',
        language: 'en',
        bodyParameters: ['A'],
      }),
    );
    expect(paused).toMatchObject({ code: 132001, errorClass: 'final' });
    const noHeader = await refusal(
      client.sendTemplate(fake.phoneNumberId, '919800015838', {
        name: 'order_update',
        language: 'en',
        bodyParameters: ['A', 'B'],
      }),
    );
    expect(noHeader).toMatchObject({ code: 132012, errorClass: 'final' });
  });

  it('a token that stopped working is an auth error on sends too', async () => {
    fake = await startFakeGraphApi();
    const client = clientFor(fake);
    fake.rotateToken();
    const error = await refusal(client.sendText(fake.phoneNumberId, '919800015838', 'hi'));
    expect(error).toMatchObject({ code: 190, errorClass: 'auth' });
    expect(fake.sends).toEqual([]);
  });

  it("sends and reads without Node's fetch (its streams cost a HIGH number's node about four times the CPU a call)", async () => {
    fake = await startFakeGraphApi({ templates: [OFFER] });
    vi.stubGlobal('fetch', () => {
      throw new Error('the Graph calls do not use fetch');
    });
    try {
      const client = clientFor(fake);
      const info = await client.getPhoneNumber(fake.phoneNumberId);
      expect(info.id).toBe(fake.phoneNumberId);
      const sent = await client.sendTemplate(fake.phoneNumberId, '919800015838', {
        name: 'diwali_offer',
        language: 'en',
        bodyParameters: ['Asha'],
      });
      expect(sent.messageId).toBe(fake.sends[0]!.messageId);
      const error = await refusal(client.sendText('999', '919800015838', 'hi'));
      expect(error).toMatchObject({ code: 100, errorClass: 'final' });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('no answer at all is a network error (the outcome of a send is unknown)', async () => {
    fake = await startFakeGraphApi();
    const client = createGraphClient({
      baseUrl: 'http://127.0.0.1:1/v23.0',
      accessToken: 'x',
      timeoutMs: 2000,
    });
    const error = await refusal(client.sendText('106540352242922', '919800015838', 'hi'));
    expect(error).toMatchObject({ code: 0, errorClass: 'network', title: 'No answer from the Graph API' });
  });

  it('a slow Graph API times out as a network error', async () => {
    fake = await startFakeGraphApi({ latencyMs: 500 });
    const client = createGraphClient({
      baseUrl: fake.baseUrl,
      accessToken: fake.accessToken,
      timeoutMs: 100,
    });
    const error = await refusal(client.sendText(fake.phoneNumberId, '919800015838', 'hi'));
    expect(error.errorClass).toBe('network');
  });
});
