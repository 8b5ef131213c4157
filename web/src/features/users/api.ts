import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  CreateUserBody,
  GrantCreditsBody,
  LedgerEntry,
  ManagedUser,
  UpdateUserBody,
} from '@wa/contract';
import { adminKeys } from '../../api/admin.ts';
import { apiFetch } from '../../lib/api.ts';
import { useApiMutation } from '../../lib/mutation.ts';

const base = '/api/admin/users';
const userPath = (id: string) => `${base}/${encodeURIComponent(id)}`;

export const userKeys = {
  list: [...adminKeys.all, 'users'] as const,
  ledger: (id: string | null) => [...adminKeys.all, 'ledger', id] as const,
};

/** GET /api/admin/users: the users this admin manages. */
export const usersQuery = () =>
  queryOptions({
    queryKey: userKeys.list,
    queryFn: ({ signal }) => apiFetch<{ success: true; users: ManagedUser[] }>(base, { signal }),
  });
export const useManagedUsers = () => useQuery(usersQuery());

/** GET /api/admin/users/:id/ledger: the user's credit changes, newest first. */
export const ledgerQuery = (id: string | null) =>
  queryOptions({
    queryKey: userKeys.ledger(id),
    queryFn: ({ signal }) =>
      apiFetch<{ success: true; entries: LedgerEntry[] }>(`${userPath(id!)}/ledger`, { signal }),
    enabled: !!id,
  });
export const useLedger = (id: string | null) => useQuery(ledgerQuery(id));

/** POST /api/admin/users. */
export const createUser = (body: CreateUserBody) =>
  apiFetch<{ success: true; user: ManagedUser }>(base, { method: 'POST', body });
export const useCreateUser = () => useApiMutation(createUser, [adminKeys.all]);

/** PATCH /api/admin/users/:id: name, flags, disabled, a new password. */
export const updateUser = (id: string, body: UpdateUserBody) =>
  apiFetch<{ success: true; user: ManagedUser }>(userPath(id), { method: 'PATCH', body });
export const useUpdateUser = () =>
  useApiMutation((v: { id: string; body: UpdateUserBody }) => updateUser(v.id, v.body), [adminKeys.all]);

/** POST /api/admin/users/:id/credits: a positive amount adds, a negative one removes. */
export const grantCredits = (id: string, body: GrantCreditsBody) =>
  apiFetch<{ success: true; credits: number }>(`${userPath(id)}/credits`, { method: 'POST', body });
export const useGrantCredits = () =>
  useApiMutation((v: { id: string; body: GrantCreditsBody }) => grantCredits(v.id, v.body), [adminKeys.all]);
