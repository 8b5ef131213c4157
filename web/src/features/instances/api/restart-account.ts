import type { AccountStatus } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { accountKeys } from './keys.ts';

/** POST /api/session/{sessionId}/restart: a new QR cycle for an account that is not connected. */
export const restartAccount = (accountId: string) =>
  apiFetch<{ success: boolean; message: string; status: AccountStatus }>(
    `/api/session/${encodeURIComponent(accountId)}/restart`,
    { method: 'POST' },
  );
export const useRestartAccount = () => useApiMutation(restartAccount, [accountKeys.all]);
