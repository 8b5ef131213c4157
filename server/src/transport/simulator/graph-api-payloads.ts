import crypto from 'node:crypto';
import { isBsuid } from '@wa/contract';

/**
 * What the fake Graph API (graph-api.ts) answers and POSTs, as Meta's pages write it: error
 * envelopes, webhook envelopes and status objects.
 */

/**
 * Titles and details as Meta's error-code page gives them
 * (developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes; texts of
 * 131049 and 131047 as quoted by Meta's per-user marketing limits page and partners' copies).
 */
export const ERRORS: Record<number, { title: string; details: string; http: number }> = {
  100: { title: 'Invalid parameter', details: 'Invalid parameter', http: 400 },
  130429: { title: 'Rate limit hit', details: 'Cloud API message throughput has been reached.', http: 429 },
  131026: {
    title: 'Message undeliverable',
    details:
      'Unable to deliver message. Reasons can include: the recipient phone number is not a WhatsApp phone number.',
    http: 400,
  },
  131047: {
    title: 'Re-engagement message',
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
    http: 400,
  },
  131049: {
    title: 'This message was not delivered to maintain healthy ecosystem engagement.',
    details: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
    http: 400,
  },
  131050: {
    title: 'User has stopped receipt of marketing messages',
    details:
      'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
    http: 400,
  },
  131056: {
    title: '(Business Account, Consumer Account) pair rate limit hit',
    details:
      'Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.',
    http: 429,
  },
  132000: {
    title: 'Number of parameters does not match the expected number of params',
    details: '',
    http: 400,
  },
  132001: { title: 'Template name does not exist in the translation', details: '', http: 400 },
  132012: { title: 'Parameter format does not match format in the created template', details: '', http: 400 },
};

/** Graph's error envelope (Graph API "Handling Errors"): the title rides in `message` as "(#code) title". */
export function graphError(code: number, details?: string, extra: Record<string, unknown> = {}) {
  const known = ERRORS[code] ?? { title: `Error ${code}`, details: '', http: 400 };
  return {
    status: known.http,
    body: {
      error: {
        message: `(#${code}) ${known.title}`,
        type: 'OAuthException',
        code,
        error_data: { messaging_product: 'whatsapp', details: details ?? known.details },
        fbtrace_id: crypto.randomBytes(8).toString('base64url'),
        ...extra,
      },
    },
  };
}

/** Meta signs the payload "using an escaped unicode version of the payload" (Graph webhooks, Getting Started). */
export function escapedUnicodeJson(payload: unknown): string {
  return JSON.stringify(payload).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export const variables = (text = '') =>
  new Set([...text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1]));

/** The `messages` webhook envelope (status and text message webhook references). */
export function messagesEnvelope(
  wabaId: string,
  phone: { id: string; display: string },
  value: Record<string, unknown>,
  field = 'messages',
) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: wabaId,
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: phone.display, phone_number_id: phone.id },
              ...value,
            },
            field,
          },
        ],
      },
    ],
  };
}

/**
 * The statuses of one accepted message (status webhook reference): sent and delivered carry
 * per-message pricing (pricing_model PMP since July 2025; `service`, a non-template message, is
 * free); a failure is one `failed` status with Meta's `errors[]`.
 */
export function statusesOf(
  message: { id: string; to: string; category: string },
  failure: number | null,
  t0: number,
  read: boolean,
): Record<string, unknown>[] {
  // A send by BSUID is reported by it (Meta's "Business-scoped user IDs": `recipient_user_id`).
  const base = isBsuid(message.to)
    ? { id: message.id, recipient_user_id: message.to }
    : { id: message.id, recipient_id: message.to };
  if (failure !== null) {
    const e = ERRORS[failure] ?? { title: `Error ${failure}`, details: '' };
    return [
      {
        ...base,
        status: 'failed',
        timestamp: String(t0),
        errors: [
          {
            code: failure,
            title: e.title,
            message: e.title,
            error_data: { details: e.details },
            href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
          },
        ],
      },
    ];
  }
  const pricing = {
    billable: message.category !== 'service',
    pricing_model: 'PMP',
    type: 'regular',
    category: message.category,
  };
  const statuses: Record<string, unknown>[] = [
    { ...base, status: 'sent', timestamp: String(t0), pricing },
    { ...base, status: 'delivered', timestamp: String(t0 + 1), pricing },
  ];
  if (read) statuses.push({ ...base, status: 'read', timestamp: String(t0 + 2) });
  return statuses;
}

/** The X-Hub-Signature-256 value of a body (Graph webhooks, Getting Started), computed here, not by the product. */
export function signature(body: string, appSecret: string): string {
  return `sha256=${crypto.createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

/**
 * A text someone writes to the business (text messages webhook reference). `person.userId`: their
 * BSUID, `username`; `hidden`: Meta leaves their number out (a person with a username who has not
 * talked to the business recently), as the "Business-scoped user IDs" page describes.
 */
export function inboundText(
  from: string,
  text: string,
  name: string,
  person: { userId?: string; username?: string; hidden?: boolean },
  id: string,
) {
  return {
    contacts: [
      {
        profile: { name, ...(person.username ? { username: person.username } : {}) },
        ...(person.hidden ? {} : { wa_id: from }),
        ...(person.userId ? { user_id: person.userId } : {}),
      },
    ],
    messages: [
      {
        ...(person.hidden ? {} : { from }),
        ...(person.userId ? { from_user_id: person.userId } : {}),
        id,
        timestamp: String(Math.floor(Date.now() / 1000)),
        type: 'text',
        text: { body: text },
      },
    ],
  };
}

/** A file someone sends the business. */
export type InboundFile = {
  type: 'image' | 'video' | 'audio' | 'document' | 'sticker';
  mime: string;
  bytes: Buffer;
  caption?: string;
  filename?: string;
};

/**
 * A file someone sends the business (image, video, audio, document and sticker messages webhook
 * references: `type` and an object of that name `{ id, mime_type, sha256, caption?, filename? }`).
 */
export function inboundMedia(from: string, file: InboundFile, mediaId: string, name: string, id: string) {
  return {
    contacts: [{ profile: { name }, wa_id: from }],
    messages: [
      {
        from,
        id,
        timestamp: String(Math.floor(Date.now() / 1000)),
        type: file.type,
        [file.type]: {
          id: mediaId,
          mime_type: file.mime,
          sha256: crypto.createHash('sha256').update(file.bytes).digest('base64'),
          ...(file.caption ? { caption: file.caption } : {}),
          ...(file.filename ? { filename: file.filename } : {}),
        },
      },
    ],
  };
}

/**
 * A stop or resume of marketing messages: the `user_preferences` webhook as its reference gives it
 * (developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/user_preferences:
 * `user_preferences[]: { wa_id, detail, category: 'marketing_messages', value: 'stop' | 'resume',
 * timestamp }` beside `contacts[]`, field `user_preferences`).
 */
export function marketingPreference(waId: string, value: 'stop' | 'resume', name: string) {
  return {
    contacts: [{ profile: { name }, wa_id: waId }],
    user_preferences: [
      {
        wa_id: waId,
        detail:
          value === 'stop'
            ? 'User requested to stop marketing messages'
            : 'User requested to resume marketing messages',
        category: 'marketing_messages',
        value,
        timestamp: Math.floor(Date.now() / 1000),
      },
    ],
  };
}
