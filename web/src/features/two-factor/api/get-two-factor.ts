import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TwoFactorStatusResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

export const twoFactorKeys = { status: ['two-factor'] as const };

/** GET /api/auth/2fa: whether two-factor sign-in is on for the signed-in user. */
export const twoFactorQuery = () =>
  queryOptions({
    queryKey: twoFactorKeys.status,
    queryFn: ({ signal }) => apiFetch<TwoFactorStatusResponse>('/api/auth/2fa', { signal }),
  });
export const useTwoFactorStatus = (enabled: boolean) => useQuery({ ...twoFactorQuery(), enabled });
