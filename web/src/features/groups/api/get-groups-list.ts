import { queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import type { GroupsListResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { groupKeys } from './keys.ts';

/** GET /api/groupsList/{sessionId}: the compose page's and dashboard's group list. */
export const groupsListQuery = (accountId: string | null) =>
  queryOptions({
    queryKey: groupKeys.list(accountId),
    queryFn: () => apiFetch<GroupsListResponse>(`/api/groupsList/${encodeURIComponent(accountId!)}`),
    enabled: !!accountId,
  });

export const useGroupsList = (accountId: string | null) => useQuery(groupsListQuery(accountId));

/**
 * The groups of all the given accounts, each counted once (two linked accounts can be in the
 * same group): the dashboard's Total Groups (it counted the first account's only).
 */
export function useGroupsOfAccounts(accountIds: string[]) {
  return useQueries({
    queries: accountIds.map((id) => groupsListQuery(id)),
    combine: (results) => {
      const ids = new Set<string>();
      for (const r of results) for (const g of r.data?.groups ?? []) ids.add(g.groupId);
      return {
        count: ids.size,
        isLoading: results.some((r) => r.isLoading),
        // Only when no account answered: one failing account leaves the others' count.
        error: results.length > 0 && results.every((r) => r.isError) ? results[0]!.error : null,
      };
    },
  });
}
