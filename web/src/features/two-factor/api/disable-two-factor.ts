import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { twoFactorKeys } from './get-two-factor.ts';

/** POST /api/auth/2fa/disable: with a current code or a recovery code. */
export const disableTwoFactor = (code: string) =>
  apiFetch<SuccessMessage>('/api/auth/2fa/disable', { method: 'POST', body: { code } });
export const useDisableTwoFactor = () => useApiMutation(disableTwoFactor, [twoFactorKeys.status]);
