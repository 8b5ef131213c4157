import type { SessionPolicy, SessionPolicyResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { policyKeys, policyPath } from './get-session-policy.ts';

/** PUT /api/session/{sessionId}/policy: replaces the policy; answers as GET does. */
export const putSessionPolicy = (v: { sessionId: string; policy: SessionPolicy }) =>
  apiFetch<SessionPolicyResponse>(policyPath(v.sessionId), { method: 'PUT', body: v.policy });

export const useSaveSessionPolicy = () => useApiMutation(putSessionPolicy, [policyKeys.all]);
