import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AccountProxyResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { accountKeys } from './keys.ts';

const path = (accountId: string) => `/api/session/${encodeURIComponent(accountId)}/proxy`;
export const accountProxyKeys = {
  of: (accountId: string) => [...accountKeys.all, 'proxy', accountId] as const,
};

/** GET /api/session/{sessionId}/proxy: the account's proxy without its password. */
export const accountProxyQuery = (accountId: string) =>
  queryOptions({
    queryKey: accountProxyKeys.of(accountId),
    queryFn: ({ signal }) => apiFetch<AccountProxyResponse>(path(accountId), { signal }),
  });
export const useAccountProxy = (accountId: string) => useQuery(accountProxyQuery(accountId));

/** PUT /api/session/{sessionId}/proxy { url }: set (or, with null, remove); the account reconnects through it. */
export const putAccountProxy = (v: { accountId: string; url: string | null }) =>
  apiFetch<AccountProxyResponse>(path(v.accountId), { method: 'PUT', body: { url: v.url } });
export const usePutAccountProxy = () => useApiMutation(putAccountProxy, [accountKeys.all]);
