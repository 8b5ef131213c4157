import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ManagedUser } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { adminKeys, usersPath } from './keys.ts';

/** GET /api/admin/users: the users this admin manages. */
export const usersQuery = () =>
  queryOptions({
    queryKey: adminKeys.users,
    queryFn: ({ signal }) => apiFetch<{ success: true; users: ManagedUser[] }>(usersPath, { signal }),
  });
export const useManagedUsers = () => useQuery(usersQuery());
