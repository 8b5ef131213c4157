import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  SuccessMessage,
  TwoFactorEnableResponse,
  TwoFactorSetupResponse,
  TwoFactorStatusResponse,
} from '@wa/contract';
import { apiFetch } from '../../lib/api.ts';
import { useApiMutation } from '../../lib/mutation.ts';

export const twoFactorKeys = { status: ['two-factor'] as const };

/** GET /api/auth/2fa: whether two-factor sign-in is on for the signed-in user. */
export const twoFactorQuery = () =>
  queryOptions({
    queryKey: twoFactorKeys.status,
    queryFn: ({ signal }) => apiFetch<TwoFactorStatusResponse>('/api/auth/2fa', { signal }),
  });
export const useTwoFactorStatus = (enabled: boolean) => useQuery({ ...twoFactorQuery(), enabled });

/** POST /api/auth/2fa/setup: a new secret and its QR (off until a code confirms it). */
export const startSetup = () => apiFetch<TwoFactorSetupResponse>('/api/auth/2fa/setup', { method: 'POST' });
export const useStartSetup = () => useApiMutation(startSetup, []);

/** POST /api/auth/2fa/enable: the ten recovery codes, shown once. */
export const enableTwoFactor = (code: string) =>
  apiFetch<TwoFactorEnableResponse>('/api/auth/2fa/enable', { method: 'POST', body: { code } });
export const useEnableTwoFactor = () => useApiMutation(enableTwoFactor, [twoFactorKeys.status]);

/** POST /api/auth/2fa/disable: with a current code or a recovery code. */
export const disableTwoFactor = (code: string) =>
  apiFetch<SuccessMessage>('/api/auth/2fa/disable', { method: 'POST', body: { code } });
export const useDisableTwoFactor = () => useApiMutation(disableTwoFactor, [twoFactorKeys.status]);
