import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AccountHealthResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

/** Query keys of accounts' health: Resume sending invalidates through these. */
export const healthKeys = {
  all: ['accountHealth'] as const,
  one: (accountId: string) => ['accountHealth', accountId] as const,
};

/** GET /api/session/{sessionId}/health: the score, its state and reason, the signals it was read from. */
export const getAccountHealth = (accountId: string, signal?: AbortSignal) =>
  apiFetch<AccountHealthResponse>(`/api/session/${encodeURIComponent(accountId)}/health`, { signal });

export const accountHealthQuery = (accountId: string) =>
  queryOptions({
    queryKey: healthKeys.one(accountId),
    queryFn: ({ signal }) => getAccountHealth(accountId, signal),
  });

/** Read again every 30 s: the node that drives the account scores it every minute. */
export const useAccountHealth = (accountId: string) =>
  useQuery({ ...accountHealthQuery(accountId), refetchInterval: 30_000 });
