import { queryOptions, useQuery } from '@tanstack/react-query';
import type { LedgerEntry } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { adminKeys, userPath } from './keys.ts';

/** GET /api/admin/users/:id/ledger: the user's credit changes, newest first. */
export const ledgerQuery = (id: string | null) =>
  queryOptions({
    queryKey: adminKeys.ledger(id),
    queryFn: ({ signal }) =>
      apiFetch<{ success: true; entries: LedgerEntry[] }>(`${userPath(id!)}/ledger`, { signal }),
    enabled: !!id,
  });
export const useLedger = (id: string | null) => useQuery(ledgerQuery(id));
