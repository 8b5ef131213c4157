import type { ChangePasswordBody, ChangePasswordResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { apiKeyKeys } from '../../api-keys/api/keys.ts';

/**
 * POST /api/auth/password: the signed-in user's own new password, with the current one (and the
 * two-factor code when it is on). Every sign-in and API key of the user ends; the answer carries
 * a new token for this browser.
 */
export const changePassword = (body: ChangePasswordBody) =>
  apiFetch<ChangePasswordResponse>('/api/auth/password', { method: 'POST', body });
export const useChangePassword = () => useApiMutation(changePassword, [apiKeyKeys.all]);
