import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { AuditResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { adminKeys } from './keys.ts';

export const AUDIT_PAGE = 50;

/** GET /api/admin/audit: one page, newest first, optionally about one user. */
export const auditQuery = (page: number, userId: string | null) =>
  queryOptions({
    queryKey: adminKeys.audit(page, userId),
    queryFn: ({ signal }) => {
      const q = new URLSearchParams({ limit: String(AUDIT_PAGE), offset: String(page * AUDIT_PAGE) });
      if (userId) q.set('userId', userId);
      return apiFetch<AuditResponse>(`/api/admin/audit?${q}`, { signal });
    },
    placeholderData: keepPreviousData,
  });
export const useAudit = (page: number, userId: string | null) => useQuery(auditQuery(page, userId));
