import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Account, AccountsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { storage } from '../../../lib/storage.ts';
import { accountKeys } from './keys.ts';

export { accountKeys };

/** GET /api/sessions; keeps `sessionsArray` in storage in step. */
export const accountsQuery = () =>
  queryOptions({
    queryKey: accountKeys.all,
    queryFn: async (): Promise<Account[]> => {
      const data = await apiFetch<AccountsResponse>('/api/sessions');
      storage.setAccounts(data.sessions.map((s) => ({ sessionId: s.sessionId, sessionName: s.sessionName })));
      return data.sessions;
    },
  });

export const useAccounts = () => useQuery(accountsQuery());
