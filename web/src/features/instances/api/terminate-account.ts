import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { accountKeys } from './keys.ts';

/** POST /api/session/{sessionId}/terminate. */
export const terminateAccount = (accountId: string) =>
  apiFetch<SuccessMessage>(`/api/session/${encodeURIComponent(accountId)}/terminate`, { method: 'POST' });
export const useTerminateAccount = () => useApiMutation(terminateAccount, [accountKeys.all]);
