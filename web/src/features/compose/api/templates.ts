import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TemplatesResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

export const templateKeys = {
  all: ['cloudTemplates'] as const,
  one: (sessionId: string | null) => ['cloudTemplates', sessionId] as const,
};

/** GET /api/session/{sessionId}/templates: a Cloud API account's templates (Meta is asked at most once a minute). */
export const getTemplates = (sessionId: string, signal?: AbortSignal) =>
  apiFetch<TemplatesResponse>(`/api/session/${encodeURIComponent(sessionId)}/templates`, { signal });

export const templatesQuery = (sessionId: string | null) =>
  queryOptions({
    queryKey: templateKeys.one(sessionId),
    queryFn: ({ signal }) => getTemplates(sessionId!, signal),
    enabled: !!sessionId,
    staleTime: 60_000,
  });

export const useTemplates = (sessionId: string | null) => useQuery(templatesQuery(sessionId));
