import type { ForgotPasswordBody, RegisterBody, SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../lib/api.ts';
import { useApiMutation } from '../../lib/mutation.ts';

/** POST /api/auth/register (when sign-up is open). */
export const register = (body: RegisterBody) =>
  apiFetch<SuccessMessage>('/api/auth/register', { method: 'POST', body });
export const useRegister = () => useApiMutation(register, []);

/** POST /api/auth/forgot-password: a request the user's admin sees in Manage Users. */
export const forgotPassword = (body: ForgotPasswordBody) =>
  apiFetch<SuccessMessage>('/api/auth/forgot-password', { method: 'POST', body });
export const useForgotPassword = () => useApiMutation(forgotPassword, []);

/** POST /api/auth/logout: revokes this browser's token. */
export const logout = () => apiFetch<SuccessMessage>('/api/auth/logout', { method: 'POST' });
export const useLogout = () => useApiMutation(logout, []);
