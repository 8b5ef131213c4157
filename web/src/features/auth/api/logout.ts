import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';

/** POST /api/auth/logout: revokes this browser's token. */
export const logout = () => apiFetch<SuccessMessage>('/api/auth/logout', { method: 'POST' });
export const useLogout = () => useApiMutation(logout, []);
