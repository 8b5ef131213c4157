import type { CreateAccountBody } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { accountKeys } from './keys.ts';

/** POST /api/create-instance → the new account's id. */
export const createAccount = (body: CreateAccountBody) =>
  apiFetch<{ success: true; message: string; sessionId: string }>('/api/create-instance', {
    method: 'POST',
    body,
  });
export const useCreateAccount = () => useApiMutation(createAccount, [accountKeys.all]);
