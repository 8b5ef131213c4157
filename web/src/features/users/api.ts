import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  CreateUserBody,
  GrantCreditsBody,
  LedgerEntry,
  ManagedUser,
  UpdateUserBody,
} from '@wa/contract';
import { apiFetch } from '../../lib/api.ts';

const base = '/api/admin/users';
const userPath = (id: string) => `${base}/${encodeURIComponent(id)}`;

/** GET /api/admin/users: the users this admin manages. */
export const usersQuery = () =>
  queryOptions({
    queryKey: ['admin', 'users'],
    queryFn: ({ signal }) => apiFetch<{ success: true; users: ManagedUser[] }>(base, { signal }),
  });
export const useManagedUsers = () => useQuery(usersQuery());

/** GET /api/admin/users/:id/ledger: the user's credit changes, newest first. */
export const ledgerQuery = (id: string | null) =>
  queryOptions({
    queryKey: ['admin', 'ledger', id],
    queryFn: ({ signal }) =>
      apiFetch<{ success: true; entries: LedgerEntry[] }>(`${userPath(id!)}/ledger`, { signal }),
    enabled: !!id,
  });
export const useLedger = (id: string | null) => useQuery(ledgerQuery(id));

/** POST /api/admin/users. */
export const createUser = (body: CreateUserBody) =>
  apiFetch<{ success: true; user: ManagedUser }>(base, { method: 'POST', body });

/** PATCH /api/admin/users/:id: name, flags, disabled, a new password. */
export const updateUser = (id: string, body: UpdateUserBody) =>
  apiFetch<{ success: true; user: ManagedUser }>(userPath(id), { method: 'PATCH', body });

/** POST /api/admin/users/:id/credits: a positive amount adds, a negative one removes. */
export const grantCredits = (id: string, body: GrantCreditsBody) =>
  apiFetch<{ success: true; credits: number }>(`${userPath(id)}/credits`, { method: 'POST', body });
