import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AccountPolicyResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

/**
 * Query keys of accounts' sending policies, one for the Account settings drawer and the send
 * page's forecast: saving the policy there refreshes the forecast, and a send refreshes today's counts.
 */
export const policyKeys = {
  all: ['accountPolicy'] as const,
  one: (accountId: string | null) => ['accountPolicy', accountId] as const,
};

export const policyPath = (accountId: string) => `/api/session/${encodeURIComponent(accountId)}/policy`;

/** GET /api/session/{sessionId}/policy: the policy with today's count against its limit, and why it waits. */
export const getAccountPolicy = (accountId: string, signal?: AbortSignal) =>
  apiFetch<AccountPolicyResponse>(policyPath(accountId), { signal });

export const accountPolicyQuery = (accountId: string | null) =>
  queryOptions({
    queryKey: policyKeys.one(accountId),
    queryFn: ({ signal }) => getAccountPolicy(accountId!, signal),
    enabled: !!accountId,
  });

export const useAccountPolicy = (accountId: string | null) => useQuery(accountPolicyQuery(accountId));

/** The send page: read again each time it opens, since what was sent today changes by the minute. */
export const useAccountToday = (accountId: string | null) =>
  useQuery({ ...accountPolicyQuery(accountId), refetchOnMount: 'always' });
