import type { ForgotPasswordBody, SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';

/** POST /api/auth/forgot-password: a request the user's admin sees in Manage Users. */
export const forgotPassword = (body: ForgotPasswordBody) =>
  apiFetch<SuccessMessage>('/api/auth/forgot-password', { method: 'POST', body });
export const useForgotPassword = () => useApiMutation(forgotPassword, []);
