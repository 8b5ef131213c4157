import { z } from 'zod';
import { UserIdParams } from './admin.ts';

/** The events a webhook may subscribe to. */
export const WebhookEventName = z.enum(
  ['job.finished', 'message.status', 'session.status', 'optout', 'message.received'],
  { error: 'Events are job.finished, message.status, session.status, optout and message.received' },
);
export type WebhookEventName = z.infer<typeof WebhookEventName>;

export const CreateWebhookBody = z.object({
  url: z.string().trim().min(1, 'Webhook URL is required').max(2048, 'Webhook URL is too long'),
  events: z
    .array(WebhookEventName, {
      error: 'Events are job.finished, message.status, session.status, optout and message.received',
    })
    .min(1, 'Choose at least one event')
    .max(5),
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

/** Making a key asks for the password again (and the two-factor code when it is on). */
export const CreateApiKeyBody = z.object({
  name: z.string().trim().min(1, 'Name is required').max(100, 'Name is too long'),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(256),
  code: z.string().trim().max(64).optional(),
});
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

/** POST /api/api-keys: `key` is shown here, once. */
export const CreateApiKeyResponse = z.object({ success: z.literal(true), id: z.string(), key: z.string() });
export type CreateApiKeyResponse = z.infer<typeof CreateApiKeyResponse>;

export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  /** The key's first characters (`wak_` and 8 more), to tell keys apart. */
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  /** Why it stopped working (null while it works). */
  revokedReason: z.enum(['revoked', 'password', 'two_factor', 'disabled']).nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;
export type ApiKeyRevokeReason = NonNullable<ApiKey['revokedReason']>;

/** What the API keys page says about a key that stopped working. */
export const API_KEY_REVOKE_REASONS: Record<ApiKeyRevokeReason, string> = {
  revoked: 'Revoked by you',
  password: 'Revoked: the password was changed',
  two_factor: 'Revoked: two-factor sign-in was turned on',
  disabled: 'Revoked: the account was disabled',
};

export const ApiKeysResponse = z.object({ success: z.literal(true), keys: z.array(ApiKey) });
export type ApiKeysResponse = z.infer<typeof ApiKeysResponse>;

export const API_KEY_MESSAGES = {
  notHere: 'API keys cannot be used for this: sign in with your password',
  wrongPassword: 'Password is incorrect',
} as const;

export const AuditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  /** Only what this user did or what was done to them. */
  userId: z.string().min(1).max(64).optional(),
});
export type AuditQuery = z.input<typeof AuditQuery>;

export const AuditEntry = z.object({
  id: z.string(),
  at: z.string(),
  /** Username of who acted at the time, 'cli' for the operator's command line. */
  actor: z.string(),
  actorId: z.string().nullable(),
  /** user.create, user.update, user.credits, auth.login, auth.login-failed, apikey.create, apikey.revoke, webhook.create, webhook.delete, … */
  action: z.string(),
  targetUserId: z.string().nullable(),
  targetUsername: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditResponse = z.object({
  success: z.literal(true),
  entries: z.array(AuditEntry),
  total: z.number().int(),
});
export type AuditResponse = z.infer<typeof AuditResponse>;

export const OverviewUser = z.object({
  id: z.string(),
  name: z.string(),
  username: z.string(),
  disabled: z.boolean(),
  balance: z.number().int(),
  /** Credits spent on sends and retries this calendar month (UTC), refunds taken off. */
  creditsUsedThisMonth: z.number().int(),
  jobsThisMonth: z.number().int(),
  /** Failed recipients over recipients with an outcome, jobs of this month; null without any. */
  failureRateThisMonth: z.number().nullable(),
  accountsConnected: z.number().int(),
  accountsTotal: z.number().int(),
  lastSignInAt: z.string().nullable(),
  /**
   * Beyond the first overview: this month's jobs' sent messages and what became of
   * them (delivered, read, replied, undelivered); rates are these ÷ sent.
   */
  deliveryThisMonth: z.object({
    sent: z.number().int(),
    delivered: z.number().int(),
    read: z.number().int(),
    replied: z.number().int(),
    undelivered: z.number().int(),
  }),
});
export type OverviewUser = z.infer<typeof OverviewUser>;

export const AdminOverviewResponse = z.object({
  success: z.literal(true),
  users: z.array(OverviewUser),
  totals: OverviewUser.omit({
    id: true,
    name: true,
    username: true,
    disabled: true,
    lastSignInAt: true,
  }).extend({
    users: z.number().int(),
  }),
  /** The last 30 days (UTC), oldest first, every day present. */
  messagesPerDay: z.array(z.object({ day: z.string(), sent: z.number().int(), failed: z.number().int() })),
});
export type AdminOverviewResponse = z.infer<typeof AdminOverviewResponse>;
