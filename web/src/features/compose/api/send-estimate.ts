import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SendBody, SendEstimateResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

/**
 * POST /api/session/{sessionId}/send-estimate: a send's split over linked phones and Cloud API
 * accounts, its credits and Meta's charge. `key` says what the body depends on (the
 * body itself may hold a large CSV).
 */
export const sendEstimateQuery = (
  accountId: string,
  key: readonly unknown[],
  body: (() => SendBody) | null,
) =>
  queryOptions({
    queryKey: ['sendEstimate', accountId, ...key] as const,
    queryFn: ({ signal }) =>
      apiFetch<SendEstimateResponse>(`/api/session/${encodeURIComponent(accountId)}/send-estimate`, {
        method: 'POST',
        body: body!(),
        signal,
      }),
    enabled: body !== null,
  });

export const useSendEstimate = (accountId: string, key: readonly unknown[], body: (() => SendBody) | null) =>
  useQuery(sendEstimateQuery(accountId, key, body));
