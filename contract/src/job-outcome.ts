import { z } from 'zod';
import { FAILURE_TEXTS } from './texts.ts';

/**
 * Failure texts that a retry cannot fix: the same recipient fails the same way, and a
 * retry would only reserve credits again. Every other failure (the session was down, delivery
 * unknown after a crash, a time-out) may succeed on a retry.
 */
export const NON_RETRYABLE_ERRORS: readonly string[] = [
  FAILURE_TEXTS.notAdmin,
  FAILURE_TEXTS.notOnWhatsApp,
  FAILURE_TEXTS.optedOut,
  FAILURE_TEXTS.notInGroup,
];

export const isRetryableError = (error: string | null | undefined): boolean =>
  !!error && !NON_RETRYABLE_ERRORS.includes(error);

/** `GET /api/message-jobs/:userId/retryable?jobIds=a,b`: of the given jobs, how many failed recipients a retry may fix. */
export const RetryableQuery = z.object({
  jobIds: z.string().max(20_000).describe('Comma-separated job ids (at most 200)'),
});
export type RetryableQuery = z.infer<typeof RetryableQuery>;

export const RetryableResponse = z.object({
  success: z.literal(true),
  /** Job id → failed recipients whose failure a retry may fix; the user's jobs only. */
  retryable: z.record(z.string(), z.number().int()),
});
export type RetryableResponse = z.infer<typeof RetryableResponse>;
