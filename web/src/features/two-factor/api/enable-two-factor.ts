import type { TwoFactorEnableResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { twoFactorKeys } from './get-two-factor.ts';

/** POST /api/auth/2fa/enable: the ten recovery codes, shown once. */
export const enableTwoFactor = (code: string) =>
  apiFetch<TwoFactorEnableResponse>('/api/auth/2fa/enable', { method: 'POST', body: { code } });
export const useEnableTwoFactor = () => useApiMutation(enableTwoFactor, [twoFactorKeys.status]);
