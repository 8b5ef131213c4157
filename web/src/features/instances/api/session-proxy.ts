import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SessionProxyResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { sessionKeys } from './keys.ts';

const path = (sessionId: string) => `/api/session/${encodeURIComponent(sessionId)}/proxy`;
export const sessionProxyKeys = {
  of: (sessionId: string) => [...sessionKeys.all, 'proxy', sessionId] as const,
};

/** GET /api/session/{sessionId}/proxy: the account's proxy without its password. */
export const sessionProxyQuery = (sessionId: string) =>
  queryOptions({
    queryKey: sessionProxyKeys.of(sessionId),
    queryFn: ({ signal }) => apiFetch<SessionProxyResponse>(path(sessionId), { signal }),
  });
export const useSessionProxy = (sessionId: string) => useQuery(sessionProxyQuery(sessionId));

/** PUT /api/session/{sessionId}/proxy { url }: set (or, with null, remove); the account reconnects through it. */
export const putSessionProxy = (v: { sessionId: string; url: string | null }) =>
  apiFetch<SessionProxyResponse>(path(v.sessionId), { method: 'PUT', body: { url: v.url } });
export const usePutSessionProxy = () => useApiMutation(putSessionProxy, [sessionKeys.all]);
