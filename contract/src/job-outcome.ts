import { z } from 'zod';
import { FAILURE_TEXTS } from './texts.ts';

/**
 * Failure texts that a retry cannot fix: the same recipient fails the same way, and a
 * retry would only reserve credits again. Every other failure (the account was down, delivery
 * unknown after a crash, a time-out) may succeed on a retry.
 */
export const NON_RETRYABLE_ERRORS: readonly string[] = [
  FAILURE_TEXTS.notAdmin,
  FAILURE_TEXTS.notOnWhatsApp,
  FAILURE_TEXTS.optedOut,
  FAILURE_TEXTS.marketingStopped,
  FAILURE_TEXTS.notInGroup,
];

export const isRetryableError = (error: string | null | undefined): boolean =>
  !!error && !NON_RETRYABLE_ERRORS.includes(error);

/**
 * Failures after which WhatsApp may have the message all the same: the send timed out ('Send
 * timed out: delivery unknown'), was interrupted ('Interrupted: delivery unknown'), or the Cloud
 * API gave no answer ('Delivery unknown: …'). A retry may send a second copy, so it includes
 * them only when the user says so (RetryBody.includeDeliveryUnknown).
 */
export const DELIVERY_UNKNOWN_MARK = 'delivery unknown';
export const isDeliveryUnknownError = (error: string | null | undefined): boolean =>
  !!error && error.toLowerCase().includes(DELIVERY_UNKNOWN_MARK);

/** `GET /api/message-jobs/:userId/retryable?jobIds=a,b`: of the given jobs, how many failed recipients a retry may fix. */
export const RetryableQuery = z.object({
  jobIds: z.string().max(20_000).describe('Comma-separated job ids (at most 200)'),
});
export type RetryableQuery = z.infer<typeof RetryableQuery>;

export const RetryableResponse = z.object({
  success: z.literal(true),
  /** Job id → failed recipients whose failure a retry may fix; the user's jobs only. */
  retryable: z.record(z.string(), z.number().int()),
  /**
   * Job id → of those, the ones whose delivery is unknown (isDeliveryUnknownError): retried only
   * with RetryBody.includeDeliveryUnknown, as a copy may arrive twice.
   */
  deliveryUnknown: z.record(z.string(), z.number().int()),
});
export type RetryableResponse = z.infer<typeof RetryableResponse>;
