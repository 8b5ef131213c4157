import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SessionHealthResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

/** Query keys of accounts' health: Resume sending invalidates through these. */
export const healthKeys = {
  all: ['sessionHealth'] as const,
  one: (sessionId: string) => ['sessionHealth', sessionId] as const,
};

/** GET /api/session/{sessionId}/health: the score, its state and reason, the signals it was read from. */
export const getSessionHealth = (sessionId: string, signal?: AbortSignal) =>
  apiFetch<SessionHealthResponse>(`/api/session/${encodeURIComponent(sessionId)}/health`, { signal });

export const sessionHealthQuery = (sessionId: string) =>
  queryOptions({
    queryKey: healthKeys.one(sessionId),
    queryFn: ({ signal }) => getSessionHealth(sessionId, signal),
  });

/** Read again every 30 s: the node that drives the account scores it every minute. */
export const useSessionHealth = (sessionId: string) =>
  useQuery({ ...sessionHealthQuery(sessionId), refetchInterval: 30_000 });
