import { z } from 'zod';
import { classifyGraphCode, type GraphErrorClass } from './graph-errors.ts';
import {
  type MessagesValue,
  messagesValueSchema,
  userPreferencesValueSchema,
  type webhookErrorSchema,
  webhookPayloadSchema,
} from './webhook-payload.ts';

/**
 * Meta's webhook payload as the product's events: a status of a message the account sent, or a
 * message someone sent to the account. Meta delivers at least once and in any order (webhooks are
 * retried until answered 200; a `read` may come before its `delivered`): the events carry Meta's
 * own timestamp and message id, and whoever applies them keeps them idempotent and monotonic
 * (`statusRank`).
 */

export type CloudStatus = 'sent' | 'delivered' | 'read' | 'failed';

export type CloudError = {
  code: number;
  /** Meta's title (the text a failed recipient shows), else its message. */
  title: string;
  details: string | null;
  errorClass: GraphErrorClass;
};

export type CloudStatusEvent = {
  kind: 'status';
  /** The WhatsApp Business Account (entry id) and the business number (metadata) it is about. */
  wabaId: string;
  phoneNumberId: string;
  messageId: string;
  /** The user's WhatsApp id (their number, digits); null when Meta gave only their BSUID. */
  recipient: string | null;
  /** The user's business-scoped id (BSUID), when Meta gave it. */
  recipientUserId: string | null;
  status: CloudStatus;
  at: Date;
  /** `pricing.category` (marketing, utility, authentication, service, …) when Meta sent pricing. */
  pricingCategory: string | null;
  billable: boolean | null;
  errors: CloudError[];
};

export type CloudInboundEvent = {
  kind: 'message';
  wabaId: string;
  phoneNumberId: string;
  messageId: string;
  /** The sender's number (digits); null when Meta left it out (a person with a username). */
  from: string | null;
  /** The sender's business-scoped user id, its parent where Meta gives one, and their username. */
  fromUserId: string | null;
  fromParentUserId: string | null;
  username: string | null;
  profileName: string | null;
  at: Date;
  /** Meta's message type: text, button, interactive, image, … */
  type: string;
  /** What the person wrote or tapped (a text body, a quick-reply button, a list row); null for media and others. */
  text: string | null;
  /** A file's caption. */
  caption: string | null;
  /** A file: its media id (fetched through the Graph API), type and name. */
  media: { id: string; mime: string; fileName: string | null } | null;
  /** The business's message this one replies to (`context.id`). */
  answers: string | null;
};

/** A person stopped or resumed marketing messages from the business (`user_preferences` webhook). */
export type CloudPreferenceEvent = {
  kind: 'preference';
  wabaId: string;
  phoneNumberId: string;
  /** `wa_id` (digits), else the business-scoped `user_id`. */
  address: string;
  stopped: boolean;
  at: Date;
};

export type CloudEvent = CloudStatusEvent | CloudInboundEvent | CloudPreferenceEvent;

export type ParsedWebhook =
  | { ok: true; events: CloudEvent[]; skippedFields: string[] }
  | { ok: false; error: string };

const STATUSES = new Set<CloudStatus>(['sent', 'delivered', 'read', 'failed']);

/**
 * A status's place in a message's life. An event whose rank is not above the recipient's current
 * one changes nothing (a repeated or late `delivered` after `read`). `failed` ends the line; a
 * `failed` after `delivered` is Meta reporting a later failure and is still recorded by the engine.
 */
export function statusRank(status: CloudStatus): number {
  return { sent: 1, delivered: 2, read: 3, failed: 4 }[status];
}

function cloudError(e: z.infer<typeof webhookErrorSchema>): CloudError {
  return {
    code: e.code,
    title: e.title ?? e.message ?? `Error ${e.code}`,
    details: e.error_data?.details ?? null,
    errorClass: classifyGraphCode(e.code),
  };
}

function inboundText(m: NonNullable<MessagesValue['messages']>[number]): string | null {
  if (m.text) return m.text.body;
  if (m.button?.text !== undefined) return m.button.text;
  return m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? null;
}

const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;

function inboundMedia(m: NonNullable<MessagesValue['messages']>[number]) {
  const kind = MEDIA_TYPES.find((k) => m[k] !== undefined);
  const file = kind ? m[kind]! : null;
  return {
    caption: file?.caption ?? null,
    media: file
      ? { id: file.id, mime: file.mime_type ?? 'application/octet-stream', fileName: file.filename ?? null }
      : null,
  };
}

function eventsOfValue(wabaId: string, value: MessagesValue): CloudEvent[] {
  const phoneNumberId = value.metadata.phone_number_id;
  const events: CloudEvent[] = [];
  for (const s of value.statuses ?? []) {
    if (!STATUSES.has(s.status as CloudStatus)) continue;
    events.push({
      kind: 'status',
      wabaId,
      phoneNumberId,
      messageId: s.id,
      recipient: s.recipient_id ?? null,
      recipientUserId: s.recipient_user_id ?? null,
      status: s.status as CloudStatus,
      at: s.timestamp,
      pricingCategory: s.pricing?.category ?? null,
      billable: s.pricing?.billable ?? null,
      errors: (s.errors ?? []).map(cloudError),
    });
  }
  const contacts = value.contacts ?? [];
  for (const m of value.messages ?? []) {
    const userId = m.from_user_id ?? null;
    // The message's contact: by its number, else by its BSUID.
    const contact = contacts.find(
      (c) => (m.from !== undefined && c.wa_id === m.from) || (userId !== null && c.user_id === userId),
    );
    const from = m.from ?? contact?.wa_id ?? null;
    const fromUserId = userId ?? contact?.user_id ?? null;
    if (from === null && fromUserId === null) continue;
    events.push({
      kind: 'message',
      wabaId,
      phoneNumberId,
      messageId: m.id,
      from,
      fromUserId,
      fromParentUserId: m.from_parent_user_id ?? contact?.parent_user_id ?? null,
      username: contact?.profile?.username ?? null,
      profileName: contact?.profile?.name ?? null,
      at: m.timestamp,
      type: m.type,
      text: inboundText(m),
      ...inboundMedia(m),
      answers: m.context?.id ?? null,
    });
  }
  return events;
}

/** The events of one webhook body (already parsed JSON), or why it is not Meta's payload. */
export function parseWebhook(json: unknown): ParsedWebhook {
  const payload = webhookPayloadSchema.safeParse(json);
  if (!payload.success) return { ok: false, error: z.prettifyError(payload.error) };
  const events: CloudEvent[] = [];
  const skippedFields: string[] = [];
  for (const entry of payload.data.entry) {
    for (const change of entry.changes) {
      if (change.field === 'user_preferences') {
        const value = userPreferencesValueSchema.safeParse(change.value);
        if (!value.success) return { ok: false, error: z.prettifyError(value.error) };
        for (const p of value.data.user_preferences) {
          if (p.category !== 'marketing_messages' || (p.value !== 'stop' && p.value !== 'resume')) continue;
          events.push({
            kind: 'preference',
            wabaId: entry.id,
            phoneNumberId: value.data.metadata.phone_number_id,
            address: (p.wa_id ?? p.user_id)!,
            stopped: p.value === 'stop',
            at: p.timestamp,
          });
        }
        continue;
      }
      if (change.field !== 'messages') {
        skippedFields.push(change.field);
        continue;
      }
      const value = messagesValueSchema.safeParse(change.value);
      if (!value.success) return { ok: false, error: z.prettifyError(value.error) };
      events.push(...eventsOfValue(entry.id, value.data));
    }
  }
  return { ok: true, events, skippedFields };
}
