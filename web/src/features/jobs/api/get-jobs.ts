import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import type { JobsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { type JobsListFilter, messageJobKeys } from './keys.ts';

export { type JobsListFilter, messageJobKeys };

/** Jobs page refresh (15001 ms). */
export const JOBS_REFRESH_MS = 15_001;

/** One page the server gives at most (contract JobsQuery). */
export const JOBS_PAGE = 100;

/** GET /api/message-jobs/{userId}: one page, newest first, with the range's summary and the next cursor. */
export function fetchJobsPage(
  userId: string,
  filter: JobsListFilter,
  cursor: string | null,
  signal?: AbortSignal,
  limit = JOBS_PAGE,
): Promise<JobsResponse> {
  const params = new URLSearchParams({ limit: String(limit) });
  if (filter.status && filter.status !== 'all') params.set('status', filter.status);
  if (filter.q?.trim()) params.set('q', filter.q.trim());
  if (filter.from) params.set('from', filter.from);
  if (filter.to) params.set('to', filter.to);
  if (cursor) params.set('cursor', cursor);
  return apiFetch<JobsResponse>(`/api/message-jobs/${encodeURIComponent(userId)}?${params}`, { signal });
}

/**
 * The list a page shows: the first page, then one more per `fetchNextPage` (keyset cursor). A
 * refresh reads again only the pages already shown.
 */
export const jobsListQuery = (userId: string | null, filter: JobsListFilter) =>
  infiniteQueryOptions({
    queryKey: messageJobKeys.list(userId, filter),
    queryFn: ({ pageParam, signal }) => fetchJobsPage(userId!, filter, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    enabled: !!userId,
    // While another tab or search loads, the rows shown stay (no flash of the empty text).
    placeholderData: keepPreviousData,
  });

export const useJobsList = (userId: string | null, filter: JobsListFilter, refetchInterval?: number) =>
  useInfiniteQuery({ ...jobsListQuery(userId, filter), refetchInterval });
