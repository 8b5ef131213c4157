import type { TwoFactorSetupResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';

/** POST /api/auth/2fa/setup: a new secret and its QR (off until a code confirms it). */
export const startSetup = () => apiFetch<TwoFactorSetupResponse>('/api/auth/2fa/setup', { method: 'POST' });
export const useStartSetup = () => useApiMutation(startSetup, []);
