import type { RegisterBody, SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';

/** POST /api/auth/register (when sign-up is open). */
export const register = (body: RegisterBody) =>
  apiFetch<SuccessMessage>('/api/auth/register', { method: 'POST', body });
export const useRegister = () => useApiMutation(register, []);
