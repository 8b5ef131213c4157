import type { ManagedUser, UpdateUserBody } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { adminKeys, userPath } from './keys.ts';

/** PATCH /api/admin/users/:id: name, flags, disabled, a new password. */
export const updateUser = (id: string, body: UpdateUserBody) =>
  apiFetch<{ success: true; user: ManagedUser }>(userPath(id), { method: 'PATCH', body });
export const useUpdateUser = () =>
  useApiMutation((v: { id: string; body: UpdateUserBody }) => updateUser(v.id, v.body), [adminKeys.all]);
