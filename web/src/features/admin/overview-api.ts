import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { AdminOverviewResponse, AuditResponse } from '@wa/contract';
import { adminKeys } from '../../api/admin.ts';
import { apiFetch } from '../../lib/api.ts';

/** GET /api/admin/overview: this month's figures per managed user, totals, 30 days of messages. */
export const overviewQuery = () =>
  queryOptions({
    queryKey: [...adminKeys.all, 'overview'],
    queryFn: ({ signal }) => apiFetch<AdminOverviewResponse>('/api/admin/overview', { signal }),
  });
export const useAdminOverview = () => useQuery(overviewQuery());

export const AUDIT_PAGE = 50;

/** GET /api/admin/audit: one page, newest first, optionally about one user. */
export const auditQuery = (page: number, userId: string | null) =>
  queryOptions({
    queryKey: [...adminKeys.all, 'audit', page, userId],
    queryFn: ({ signal }) => {
      const q = new URLSearchParams({ limit: String(AUDIT_PAGE), offset: String(page * AUDIT_PAGE) });
      if (userId) q.set('userId', userId);
      return apiFetch<AuditResponse>(`/api/admin/audit?${q}`, { signal });
    },
    placeholderData: keepPreviousData,
  });
export const useAudit = (page: number, userId: string | null) => useQuery(auditQuery(page, userId));
