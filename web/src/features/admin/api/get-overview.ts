import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AdminOverviewResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { adminKeys } from './keys.ts';

/** GET /api/admin/overview: this month's figures per managed user, totals, 30 days of messages. */
export const overviewQuery = () =>
  queryOptions({
    queryKey: adminKeys.overview,
    queryFn: ({ signal }) => apiFetch<AdminOverviewResponse>('/api/admin/overview', { signal }),
  });
export const useAdminOverview = () => useQuery(overviewQuery());
