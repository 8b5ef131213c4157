import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import type { InboxListResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { JOBS_REFRESH_MS } from '../../jobs/api/get-jobs.ts';
import { type InboxFilter, inboxKeys } from './keys.ts';

/** The Inbox reads itself again as often as Message Jobs does. */
export const INBOX_REFRESH_MS = JOBS_REFRESH_MS;

/** Threads a page asks for (the server's default). */
export const INBOX_PAGE = 50;

/** GET /api/inbox: one page of threads, newest first, and the cursor of the next. */
export function fetchInboxPage(
  userId: string | null,
  filter: InboxFilter,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<InboxListResponse> {
  const params = new URLSearchParams({ limit: String(INBOX_PAGE) });
  if (userId) params.set('userId', userId);
  for (const [key, value] of Object.entries(filter)) if (value) params.set(key, value);
  if (cursor) params.set('cursor', cursor);
  return apiFetch<InboxListResponse>(`/api/inbox?${params}`, { signal });
}

/** The threads shown: the first page, then one more per `fetchNextPage` (the server's cursor). */
export const inboxListQuery = (userId: string | null, filter: InboxFilter) =>
  infiniteQueryOptions({
    queryKey: inboxKeys.list(userId, filter),
    queryFn: ({ pageParam, signal }) => fetchInboxPage(userId, filter, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    // While another filter or search loads, the threads shown stay (no flash of the empty text).
    placeholderData: keepPreviousData,
  });

export const useInboxList = (userId: string | null, filter: InboxFilter) =>
  useInfiniteQuery({ ...inboxListQuery(userId, filter), refetchInterval: INBOX_REFRESH_MS });
