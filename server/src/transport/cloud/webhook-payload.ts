import { parseDateInput } from '@wa/contract';
import { z } from 'zod';

/**
 * The body of Meta's webhook POSTs for the `messages` field, as the WhatsApp webhook references
 * give it:
 * - status webhook reference
 *   (https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/status/):
 *   `statuses[]: { id, status, timestamp, recipient_id, conversation?, pricing?: { billable,
 *   pricing_model, type, category }, errors?: [{ code, title, message, error_data: { details },
 *   href }] }` — `conversation` is omitted from v24.0 on, so nothing here needs it;
 * - text messages webhook reference: `contacts[]: { profile: { name }, wa_id }`, `messages[]:
 *   { from, id, timestamp, type: 'text', text: { body } }`;
 * - "Business-scoped user IDs"
 *   (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids/):
 *   every message and status webhook carries the person's BSUID (`contacts[].user_id`,
 *   `messages[].from_user_id`, `statuses[].recipient_user_id`; `parent_user_id` beside each where
 *   parent BSUIDs are on) and `contacts[].profile.username` when they have one; the phone number
 *   (`wa_id`, `from`, `recipient_id`) is left out for a person with a username who has not
 *   talked to the business recently. So either may be missing, not both.
 * Timestamps are Unix seconds as strings. Only what the product reads is checked; everything else
 * passes (`loose`), since Meta adds fields without notice. Other webhook fields
 * (`message_template_status_update`, `phone_number_quality_update`, …) are read as unknown.
 */

const unixSeconds = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const at = parseDateInput(Number(v) * 1000);
  if (!at) {
    ctx.addIssue({ code: 'custom', message: 'a Unix timestamp in seconds' });
    return z.NEVER;
  }
  return at;
});

export const webhookErrorSchema = z
  .object({
    code: z.number().int(),
    title: z.string().optional(),
    message: z.string().optional(),
    error_data: z.object({ details: z.string().optional() }).loose().optional(),
  })
  .loose();

export const statusSchema = z
  .object({
    id: z.string().min(1),
    /** sent, delivered, read, failed (others, e.g. `deleted` or `played`, are ignored by the parser). */
    status: z.string(),
    timestamp: unixSeconds,
    recipient_id: z.string().min(1).optional(),
    recipient_user_id: z.string().min(1).optional(),
    recipient_parent_user_id: z.string().min(1).optional(),
    pricing: z
      .object({
        billable: z.boolean().optional(),
        pricing_model: z.string().optional(),
        type: z.string().optional(),
        category: z.string().optional(),
      })
      .loose()
      .optional(),
    errors: z.array(webhookErrorSchema).optional(),
  })
  .loose();

/**
 * A file in an incoming message (image, video, audio, document and sticker messages webhook
 * references: `{ id, mime_type, sha256, caption?, filename? }`); `id` is the media id the file is
 * fetched by (Media reference, developers.facebook.com/docs/whatsapp/cloud-api/reference/media).
 */
const mediaSchema = z
  .object({
    id: z.string().min(1),
    mime_type: z.string().optional(),
    caption: z.string().optional(),
    filename: z.string().optional(),
  })
  .loose()
  .optional();

export const inboundMessageSchema = z
  .object({
    from: z.string().min(1).optional(),
    from_user_id: z.string().min(1).optional(),
    from_parent_user_id: z.string().min(1).optional(),
    id: z.string().min(1),
    timestamp: unixSeconds,
    type: z.string(),
    text: z.object({ body: z.string() }).loose().optional(),
    button: z.object({ text: z.string().optional(), payload: z.string().optional() }).loose().optional(),
    interactive: z
      .object({
        type: z.string().optional(),
        button_reply: z.object({ id: z.string().optional(), title: z.string() }).loose().optional(),
        list_reply: z.object({ id: z.string().optional(), title: z.string() }).loose().optional(),
      })
      .loose()
      .optional(),
    image: mediaSchema,
    video: mediaSchema,
    audio: mediaSchema,
    document: mediaSchema,
    sticker: mediaSchema,
    /** The business's message this one replies to (a swipe reply, a quick-reply button). */
    context: z.object({ id: z.string().optional() }).loose().optional(),
  })
  .loose();

export const messagesValueSchema = z
  .object({
    messaging_product: z.literal('whatsapp'),
    metadata: z.object({ display_phone_number: z.string(), phone_number_id: z.string().min(1) }).loose(),
    contacts: z
      .array(
        z
          .object({
            wa_id: z.string().optional(),
            user_id: z.string().optional(),
            parent_user_id: z.string().optional(),
            profile: z
              .object({ name: z.string().optional(), username: z.string().optional() })
              .loose()
              .optional(),
          })
          .loose(),
      )
      .optional(),
    messages: z.array(inboundMessageSchema).optional(),
    statuses: z.array(statusSchema).optional(),
    errors: z.array(webhookErrorSchema).optional(),
  })
  .loose();

/**
 * The `user_preferences` field (user_preferences webhook reference,
 * https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/user_preferences):
 * `user_preferences[]: { wa_id, detail, category: 'marketing_messages', value: 'stop' | 'resume',
 * timestamp }`, sent when a person stops or resumes marketing messages from the business. A person
 * Meta names only by business-scoped user id comes with `user_id` instead of `wa_id`.
 */
export const userPreferencesValueSchema = z
  .object({
    metadata: z.object({ phone_number_id: z.string().min(1) }).loose(),
    user_preferences: z.array(
      z
        .object({
          wa_id: z.string().min(1).optional(),
          user_id: z.string().min(1).optional(),
          category: z.string(),
          value: z.string(),
          timestamp: unixSeconds,
        })
        .loose()
        .refine((p) => p.wa_id !== undefined || p.user_id !== undefined, 'wa_id or user_id'),
    ),
  })
  .loose();

export const webhookPayloadSchema = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(
    z
      .object({
        /** The WhatsApp Business Account id. */
        id: z.string(),
        changes: z.array(z.object({ field: z.string(), value: z.unknown() }).loose()),
      })
      .loose(),
  ),
});

export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;
export type MessagesValue = z.infer<typeof messagesValueSchema>;
