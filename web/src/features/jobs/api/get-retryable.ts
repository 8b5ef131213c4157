import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { RetryableResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { messageJobKeys } from './keys.ts';

/** GET /api/message-jobs/{userId}/retryable: how many of each job's failures a retry may fix. */
export const getRetryable = (userId: string, jobIds: readonly string[], signal?: AbortSignal) =>
  apiFetch<RetryableResponse>(
    `/api/message-jobs/${encodeURIComponent(userId)}/retryable?jobIds=${encodeURIComponent(jobIds.join(','))}`,
    { signal },
  );

export const retryableQuery = (userId: string | null, jobIds: readonly string[]) =>
  queryOptions({
    // Under `messageJobKeys.all`: a refresh, a retry or a delete of jobs reads it again.
    queryKey: messageJobKeys.retryable(userId, jobIds),
    queryFn: ({ signal }) => getRetryable(userId!, jobIds, signal),
    enabled: !!userId && jobIds.length > 0,
    placeholderData: keepPreviousData,
  });

/**
 * Job id → failures a retry may fix, for the given jobs (those with failures), 200 at a time.
 * A job not answered yet is absent: Retry Failed waits for the answer.
 */
export function useRetryable(userId: string | null, jobIds: readonly string[]): Record<string, number> {
  const first = jobIds.slice(0, 200);
  const { data } = useQuery(retryableQuery(userId, first));
  return data?.retryable ?? {};
}

/**
 * Job id → of its failures a retry may fix, those whose delivery is unknown (WhatsApp may have
 * them already): a retry sends them only when the user accepts that a copy may arrive twice.
 */
export function useDeliveryUnknown(userId: string | null, jobIds: readonly string[]): Record<string, number> {
  const { data } = useQuery(retryableQuery(userId, jobIds.slice(0, 200)));
  return data?.deliveryUnknown ?? {};
}
