import { z } from 'zod';
import { UserIdParams } from './admin.ts';

/** The events a webhook may subscribe to. */
export const WebhookEventName = z.enum(['job.finished', 'message.status', 'session.status', 'optout'], {
  error: 'Events are job.finished, message.status, session.status and optout',
});
export type WebhookEventName = z.infer<typeof WebhookEventName>;

export const CreateWebhookBody = z.object({
  url: z.string().trim().min(1, 'Webhook URL is required').max(2048, 'Webhook URL is too long'),
  events: z
    .array(WebhookEventName, { error: 'Events are job.finished, message.status, session.status and optout' })
    .min(1, 'Choose at least one event')
    .max(4),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(WebhookEventName),
  createdAt: z.string(),
});
export type Webhook = z.infer<typeof Webhook>;

/** POST /api/webhooks: the secret is shown here, once. */
export const CreateWebhookResponse = z.object({
  success: z.literal(true),
  webhook: z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(WebhookEventName),
    secret: z.string(),
  }),
});
export type CreateWebhookResponse = z.infer<typeof CreateWebhookResponse>;

export const WebhooksResponse = z.object({ success: z.literal(true), webhooks: z.array(Webhook) });
export type WebhooksResponse = z.infer<typeof WebhooksResponse>;

export const WebhookAttempt = z.object({
  id: z.string(),
  event: z.string(),
  /** How many events the call carried. */
  events: z.number().int(),
  at: z.string(),
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable(),
  ok: z.boolean(),
  error: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

export const WebhookAttemptsResponse = z.object({
  success: z.literal(true),
  attempts: z.array(WebhookAttempt),
});
export type WebhookAttemptsResponse = z.infer<typeof WebhookAttemptsResponse>;

/** A path's `:id` (webhook, API key), the same shape as a user's. */
export const IdParams = UserIdParams;
