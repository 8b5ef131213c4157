import type { CreateUserBody, ManagedUser } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { adminKeys, usersPath } from './keys.ts';

/** POST /api/admin/users. */
export const createUser = (body: CreateUserBody) =>
  apiFetch<{ success: true; user: ManagedUser }>(usersPath, { method: 'POST', body });
export const useCreateUser = () => useApiMutation(createUser, [adminKeys.all]);
