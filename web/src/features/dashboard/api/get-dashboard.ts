import { queryOptions, useQuery } from '@tanstack/react-query';
import type { DashboardResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

export const dashboardKeys = { of: (sessionId: string | null) => ['dashboard', sessionId] as const };

/** GET /api/dashboard?sessionId=…: members of the session's groups, messages sent, delivery, latest jobs. */
export const dashboardQuery = (sessionId: string | null) =>
  queryOptions({
    queryKey: dashboardKeys.of(sessionId),
    queryFn: ({ signal }) =>
      apiFetch<DashboardResponse>(
        sessionId ? `/api/dashboard?sessionId=${encodeURIComponent(sessionId)}` : '/api/dashboard',
        { signal },
      ),
  });

export const useDashboard = (sessionId: string | null, enabled: boolean) =>
  useQuery({ ...dashboardQuery(sessionId), enabled });
