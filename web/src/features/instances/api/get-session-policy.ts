import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SessionPolicyResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

/**
 * Query keys of accounts' sending policies, one for the Account settings drawer and the send
 * page's forecast: saving the policy there refreshes the forecast, and a send refreshes today's counts.
 */
export const policyKeys = {
  all: ['sessionPolicy'] as const,
  one: (sessionId: string | null) => ['sessionPolicy', sessionId] as const,
};

export const policyPath = (sessionId: string) => `/api/session/${encodeURIComponent(sessionId)}/policy`;

/** GET /api/session/{sessionId}/policy: the policy with today's count against its limit, and why it waits. */
export const getSessionPolicy = (sessionId: string, signal?: AbortSignal) =>
  apiFetch<SessionPolicyResponse>(policyPath(sessionId), { signal });

export const sessionPolicyQuery = (sessionId: string | null) =>
  queryOptions({
    queryKey: policyKeys.one(sessionId),
    queryFn: ({ signal }) => getSessionPolicy(sessionId!, signal),
    enabled: !!sessionId,
  });

export const useSessionPolicy = (sessionId: string | null) => useQuery(sessionPolicyQuery(sessionId));

/** The send page: read again each time it opens, since what was sent today changes by the minute. */
export const useSessionToday = (sessionId: string | null) =>
  useQuery({ ...sessionPolicyQuery(sessionId), refetchOnMount: 'always' });
