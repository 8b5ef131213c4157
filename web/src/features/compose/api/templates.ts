import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TemplatesResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

export const templateKeys = {
  all: ['cloudTemplates'] as const,
  one: (accountId: string | null) => ['cloudTemplates', accountId] as const,
};

/** GET /api/session/{sessionId}/templates: a Cloud API account's templates (Meta is asked at most once a minute). */
export const getTemplates = (accountId: string, signal?: AbortSignal) =>
  apiFetch<TemplatesResponse>(`/api/session/${encodeURIComponent(accountId)}/templates`, { signal });

export const templatesQuery = (accountId: string | null) =>
  queryOptions({
    queryKey: templateKeys.one(accountId),
    queryFn: ({ signal }) => getTemplates(accountId!, signal),
    enabled: !!accountId,
    staleTime: 60_000,
  });

export const useTemplates = (accountId: string | null) => useQuery(templatesQuery(accountId));
