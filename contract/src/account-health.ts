import { z } from 'zod';

/**
 * An account's health: a score from 0 to 100 over a sliding window, what it was
 * read from, and what the circuit breaker does with it (docs/accounts.md, "Account health and the circuit breaker").
 */

/** At or above: good. Below: the account slows (pauses doubled, daily caps halved). */
export const HEALTH_WATCH_BELOW = 80;
/** Below: the account's one-to-one sends pause ('Paused to protect this account: …'). */
export const HEALTH_PAUSE_BELOW = 40;

export const HealthState = z.enum(['good', 'watch', 'paused']);
export type HealthState = z.infer<typeof HealthState>;

export const HealthSignals = z.object({
  /** Messages sent in the window (all chats). */
  sent: z.number().int(),
  /** Of them, one-to-one messages. */
  oneToOneSent: z.number().int(),
  /** Sends WhatsApp or the transport failed (not counting numbers not on WhatsApp or opt-outs). */
  failed: z.number().int(),
  /** Messages with no delivery receipt in time. */
  undelivered: z.number().int(),
  /** Numbers looked up (one-to-one sends and numbers found not on WhatsApp). */
  lookups: z.number().int(),
  notOnWhatsApp: z.number().int(),
  /** WhatsApp's restrictions of new chats: 463, the reach-out timelock, the CAPPED quota. */
  restrictions: z.number().int(),
  /** WhatsApp's 429 rate-overlimit answers. */
  rateLimited: z.number().int(),
  disconnects: z.number().int(),
  /** Recipients who replied with an opt-out keyword (STOP). */
  stops: z.number().int(),
  replies: z.number().int(),
  /** One-to-one numbers this account messaged for the first time. */
  newContacts: z.number().int(),
});
export type HealthSignals = z.infer<typeof HealthSignals>;

export const AccountHealthResponse = z.object({
  score: z.number().int().min(0).max(100),
  state: HealthState,
  /** Why the score is below good, or why sends are paused (null when good). */
  reason: z.string().nullable(),
  signals: HealthSignals,
  /** The start of the window the score covers, ISO. */
  since: z.string(),
  /** When a pause ends by itself (ISO; null: until the user resumes, or no pause). */
  pausedUntil: z.string().nullable(),
});
export type AccountHealthResponse = z.infer<typeof AccountHealthResponse>;
