import { z } from 'zod';
import { AccountStatus } from './account-api.ts';
import { OptOutSource } from './contacts.ts';
import { JobStatus } from './jobs.ts';
import type { WebhookEventName } from './operations.ts';

/**
 * The `data` of each webhook event, as a receiver reads it. Most are built inside PostgreSQL, in
 * the triggers of server/drizzle/0006_webhook_events.sql (job.finished, account.status) and
 * 0021_webhook_status_per_statement.sql (message.status); optout in contacts/opt-out-list.ts,
 * message.received in messaging/inbox/incoming.ts. The
 * server's webhook-payloads test makes each event through the product and checks the stored rows
 * against these; the deliverer checks every payload it sends. Keys may be added (`.loose()`:
 * a receiver ignores what it does not know), never removed or renamed.
 */
const Utc = z.iso.datetime();

export const JobFinishedPayload = z
  .object({
    jobId: z.string(),
    sessionId: z.string(),
    status: JobStatus.extract(['completed', 'failed']),
    total: z.number().int(),
    sent: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
    finishedAt: Utc,
  })
  .loose();

export const MessageStatusPayload = z
  .object({
    jobId: z.string(),
    recipientId: z.string(),
    chatId: z.string(),
    status: z.enum(['sent', 'delivered', 'read', 'failed', 'replied', 'undelivered']),
    /** Why it failed, or why it stayed undelivered (null when not known, and for other statuses). */
    error: z.string().nullable(),
    /** The contact's reply, for 'replied' (null or absent otherwise). */
    reply: z.string().nullable().optional(),
    at: Utc,
  })
  .loose();

export const AccountStatusPayload = z
  .object({ sessionId: z.string(), status: AccountStatus, reason: z.string().nullable(), at: Utc })
  .loose();

/** `phone`: the number, else how the address is shown; `address`: the address the opt-out came from. */
export const OptOutPayload = z
  .object({
    phone: z.string(),
    source: OptOutSource,
    at: Utc,
    address: z.object({ kind: z.string(), value: z.string() }).optional(),
  })
  .loose();

/** Webhook `message.received`: someone wrote to one of the user's accounts (one-to-one). */
export const MessageReceivedPayload = z
  .object({
    sessionId: z.string(),
    personId: z.string(),
    from: z.string(),
    messageId: z.string(),
    type: z.string(),
    text: z.string(),
    /** The job whose message this answers, if any. */
    jobId: z.string().nullable(),
    /**
     * A poll vote (`type` 'poll_vote') only: the options it chose, in the poll's order ([] when the
     * person took their vote back); null when the poll is not one the product sent.
     */
    options: z.array(z.string()).nullable().optional(),
    at: Utc,
  })
  .loose();

/** Each event's payload schema, by event name. */
export const WEBHOOK_PAYLOADS = {
  'job.finished': JobFinishedPayload,
  'message.status': MessageStatusPayload,
  'session.status': AccountStatusPayload,
  optout: OptOutPayload,
  'message.received': MessageReceivedPayload,
} as const satisfies Record<WebhookEventName, z.ZodType>;

export type WebhookPayloads = { [E in WebhookEventName]: z.infer<(typeof WEBHOOK_PAYLOADS)[E]> };
