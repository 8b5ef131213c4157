import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseWebhook, statusRank } from '../../src/transport/cloud/webhook-events.ts';
import {
  answerVerification,
  checkWebhookSignature,
  signWebhookBody,
} from '../../src/transport/cloud/webhook-signature.ts';

const SECRET = 'a1b2c3d4e5f6';
/** An independent HMAC, so the product's check is held to Meta's definition rather than to itself. */
const metaSignature = (body: string, secret = SECRET) =>
  `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;

/** The sample Meta's App Dashboard sends for the `messages` field (text message webhook reference shape). */
const DASHBOARD_SAMPLE =
  '{"object":"whatsapp_business_account","entry":[{"id":"0","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"16505551111","phone_number_id":"123456123"},"contacts":[{"profile":{"name":"test user name"},"wa_id":"16315551181"}],"messages":[{"from":"16315551181","id":"ABGGFlA5Fpa","timestamp":"1504902988","type":"text","text":{"body":"this is a text message"}}]}}]}]}';

/** A status webhook as the status webhook reference lays it out (values from its example column). */
function statusPayload(status: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
              statuses: [status],
            },
            field: 'messages',
          },
        ],
      },
    ],
  };
}

describe('X-Hub-Signature-256', () => {
  it('accepts Meta signature of the raw body, in any hex case', () => {
    expect(checkWebhookSignature(DASHBOARD_SAMPLE, metaSignature(DASHBOARD_SAMPLE), SECRET)).toBe('ok');
    expect(
      checkWebhookSignature(
        Buffer.from(DASHBOARD_SAMPLE),
        metaSignature(DASHBOARD_SAMPLE).toUpperCase().replace('SHA256', 'sha256'),
        SECRET,
      ),
    ).toBe('ok');
    expect(signWebhookBody(DASHBOARD_SAMPLE, SECRET)).toBe(metaSignature(DASHBOARD_SAMPLE));
  });

  it('refuses a missing, malformed, wrong-secret or tampered signature', () => {
    expect(checkWebhookSignature(DASHBOARD_SAMPLE, undefined, SECRET)).toBe('missing');
    expect(checkWebhookSignature(DASHBOARD_SAMPLE, '', SECRET)).toBe('missing');
    expect(checkWebhookSignature(DASHBOARD_SAMPLE, 'sha1=abcdef', SECRET)).toBe('malformed');
    expect(checkWebhookSignature(DASHBOARD_SAMPLE, `sha256=${'0'.repeat(63)}`, SECRET)).toBe('malformed');
    expect(checkWebhookSignature(DASHBOARD_SAMPLE, metaSignature(DASHBOARD_SAMPLE, 'other'), SECRET)).toBe(
      'mismatch',
    );
    const tampered = DASHBOARD_SAMPLE.replace('this is a text message', 'this is a text massage');
    expect(checkWebhookSignature(tampered, metaSignature(DASHBOARD_SAMPLE), SECRET)).toBe('mismatch');
  });

  it('holds only over the bytes as sent: Meta escapes unicode, a re-serialised body no longer matches', () => {
    const sent = '{"text":"Caf\\u00e9 \\u20b9"}';
    const signature = metaSignature(sent);
    expect(checkWebhookSignature(sent, signature, SECRET)).toBe('ok');
    expect(checkWebhookSignature(JSON.stringify(JSON.parse(sent)), signature, SECRET)).toBe('mismatch');
  });
});

describe('verification request', () => {
  it('echoes hub.challenge for subscribe with the account verify token, else nothing', () => {
    const query = {
      'hub.mode': 'subscribe',
      'hub.challenge': '1158201444',
      'hub.verify_token': 'meatyhamhock',
    };
    expect(answerVerification(query, 'meatyhamhock')).toBe('1158201444');
    expect(answerVerification(query, 'other-token')).toBeNull();
    expect(answerVerification({ ...query, 'hub.mode': 'unsubscribe' }, 'meatyhamhock')).toBeNull();
    expect(
      answerVerification({ 'hub.mode': 'subscribe', 'hub.verify_token': 'meatyhamhock' }, 'meatyhamhock'),
    ).toBeNull();
  });
});

describe('webhook payload → events', () => {
  it('reads the dashboard sample as one inbound text with its sender name', () => {
    const parsed = parseWebhook(JSON.parse(DASHBOARD_SAMPLE));
    expect(parsed).toEqual({
      ok: true,
      skippedFields: [],
      events: [
        {
          kind: 'message',
          wabaId: '0',
          phoneNumberId: '123456123',
          messageId: 'ABGGFlA5Fpa',
          from: '16315551181',
          fromUserId: null,
          fromParentUserId: null,
          username: null,
          profileName: 'test user name',
          at: new Date(1504902988 * 1000),
          type: 'text',
          text: 'this is a text message',
          caption: null,
          media: null,
          answers: null,
        },
      ],
    });
  });

  it('reads a message and a status that carry a BSUID and no number (a person with a username)', () => {
    const value = {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: '123456123' },
      contacts: [{ profile: { name: 'Asha', username: 'asha.k' }, user_id: 'IN.13491208655302741918' }],
      messages: [
        {
          from_user_id: 'IN.13491208655302741918',
          id: 'wamid.in.bsuid',
          timestamp: '1750263773',
          type: 'text',
          text: { body: 'STOP' },
        },
      ],
      statuses: [
        {
          id: 'wamid.out.bsuid',
          status: 'read',
          timestamp: '1750263774',
          recipient_user_id: 'IN.13491208655302741918',
        },
      ],
    };
    const parsed = parseWebhook({
      object: 'whatsapp_business_account',
      entry: [{ id: '0', changes: [{ field: 'messages', value }] }],
    });
    expect(parsed.ok && parsed.events).toEqual([
      expect.objectContaining({
        kind: 'status',
        messageId: 'wamid.out.bsuid',
        recipient: null,
        status: 'read',
      }),
      expect.objectContaining({
        kind: 'message',
        from: null,
        fromUserId: 'IN.13491208655302741918',
        username: 'asha.k',
        profileName: 'Asha',
        text: 'STOP',
      }),
    ]);
  });

  it('reads sent / delivered / read statuses with Meta time and pricing category', () => {
    const pricing = { billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' };
    const base = { id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3', recipient_id: '16505551234' };
    const events = ['sent', 'delivered', 'read'].flatMap((status, i) => {
      const parsed = parseWebhook(
        statusPayload({
          ...base,
          status,
          timestamp: String(1750263773 + i),
          ...(status === 'read' ? {} : { pricing }),
        }),
      );
      return parsed.ok ? parsed.events : [];
    });
    expect(
      events.map(
        (e) => e.kind === 'status' && [e.status, e.at.getTime() / 1000, e.pricingCategory, e.billable],
      ),
    ).toEqual([
      ['sent', 1750263773, 'marketing', true],
      ['delivered', 1750263774, 'marketing', true],
      ['read', 1750263775, null, null],
    ]);
    expect(events[0]).toMatchObject({
      messageId: base.id,
      recipient: '16505551234',
      phoneNumberId: '106540352242922',
      errors: [],
    });
  });

  it('reads a failed status with errors[].code classed as the client classes it', () => {
    const parsed = parseWebhook(
      statusPayload({
        id: 'wamid.X',
        status: 'failed',
        timestamp: '1750263773',
        recipient_id: '919800015838',
        errors: [
          {
            code: 131049,
            title: 'This message was not delivered to maintain healthy ecosystem engagement.',
            message: 'This message was not delivered to maintain healthy ecosystem engagement.',
            error_data: {
              details:
                'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
            },
            href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
          },
        ],
      }),
    );
    expect(parsed.ok && parsed.events[0]).toMatchObject({
      status: 'failed',
      errors: [
        {
          code: 131049,
          title: 'This message was not delivered to maintain healthy ecosystem engagement.',
          details: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
          errorClass: 'retryAfter24h',
        },
      ],
    });
  });

  it('keeps unknown fields and statuses out of the events, and skips other webhook fields', () => {
    const payload = statusPayload({
      id: 'wamid.Y',
      status: 'deleted',
      timestamp: '1750263773',
      recipient_id: '1',
      biz_opaque_callback_data: 'x',
    });
    payload.entry[0]!.changes.push({
      value: { display_phone_number: '15550783881', event: 'THROUGHPUT_UPGRADE' } as never,
      field: 'phone_number_quality_update',
    });
    expect(parseWebhook(payload)).toEqual({
      ok: true,
      events: [],
      skippedFields: ['phone_number_quality_update'],
    });
  });

  it('says why a body is not Meta payload', () => {
    expect(parseWebhook({ object: 'page', entry: [] })).toMatchObject({ ok: false });
    const bad = statusPayload({ id: 'wamid.Z', status: 'sent', timestamp: 'yesterday', recipient_id: '1' });
    const parsed = parseWebhook(bad);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain('a Unix timestamp in seconds');
  });

  it('ranks statuses so a late delivered after read changes nothing', () => {
    expect(statusRank('sent')).toBeLessThan(statusRank('delivered'));
    expect(statusRank('delivered')).toBeLessThan(statusRank('read'));
    expect(statusRank('read')).toBeLessThan(statusRank('failed'));
  });
});
