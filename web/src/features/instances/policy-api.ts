import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SessionPolicy, SessionPolicyResponse } from '@wa/contract';
import { apiFetch } from '../../lib/api.ts';
import { useApiMutation } from '../../lib/mutation.ts';

/** Query keys of accounts' sending policies: the save invalidates through these. */
export const policyKeys = {
  all: ['sessionPolicy'] as const,
  one: (sessionId: string | null) => ['sessionPolicy', sessionId] as const,
};

const policyPath = (sessionId: string) => `/api/session/${encodeURIComponent(sessionId)}/policy`;

/** GET /api/session/{sessionId}/policy: the policy with today's count against its limit. */
export const getSessionPolicy = (sessionId: string, signal?: AbortSignal) =>
  apiFetch<SessionPolicyResponse>(policyPath(sessionId), { signal });

export const sessionPolicyQuery = (sessionId: string | null) =>
  queryOptions({
    queryKey: policyKeys.one(sessionId),
    queryFn: ({ signal }) => getSessionPolicy(sessionId!, signal),
    enabled: !!sessionId,
  });

export const useSessionPolicy = (sessionId: string | null) => useQuery(sessionPolicyQuery(sessionId));

/** PUT /api/session/{sessionId}/policy: replaces the policy; answers as GET does. */
export const putSessionPolicy = (v: { sessionId: string; policy: SessionPolicy }) =>
  apiFetch<SessionPolicyResponse>(policyPath(v.sessionId), { method: 'PUT', body: v.policy });

export const useSaveSessionPolicy = () => useApiMutation(putSessionPolicy, [policyKeys.all]);
