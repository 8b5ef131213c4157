import type { AccountPolicy, AccountPolicyResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { policyKeys, policyPath } from './get-account-policy.ts';

/** PUT /api/session/{sessionId}/policy: replaces the policy; answers as GET does. */
export const putAccountPolicy = (v: { accountId: string; policy: AccountPolicy }) =>
  apiFetch<AccountPolicyResponse>(policyPath(v.accountId), { method: 'PUT', body: v.policy });

export const useSaveAccountPolicy = () => useApiMutation(putAccountPolicy, [policyKeys.all]);
