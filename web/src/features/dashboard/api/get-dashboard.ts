import { queryOptions, useQuery } from '@tanstack/react-query';
import type { DashboardResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

export const dashboardKeys = { of: (accountId: string | null) => ['dashboard', accountId] as const };

/** GET /api/dashboard?sessionId=…: members of the account's groups, messages sent, delivery, latest jobs. */
export const dashboardQuery = (accountId: string | null) =>
  queryOptions({
    queryKey: dashboardKeys.of(accountId),
    queryFn: ({ signal }) =>
      apiFetch<DashboardResponse>(
        accountId ? `/api/dashboard?sessionId=${encodeURIComponent(accountId)}` : '/api/dashboard',
        { signal },
      ),
  });

export const useDashboard = (accountId: string | null, enabled: boolean) =>
  useQuery({ ...dashboardQuery(accountId), enabled });
