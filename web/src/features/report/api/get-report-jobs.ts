import {
  infiniteQueryOptions,
  type QueryClient,
  queryOptions,
  useInfiniteQuery,
  useQuery,
} from '@tanstack/react-query';
import { isActive } from '@wa/contract';
import { useMemo } from 'react';
import {
  fetchJobsPage,
  type JobsListFilter,
  jobsListQuery,
  messageJobKeys,
} from '../../jobs/api/get-jobs.ts';
import { type DateRange, rangeBounds } from '../report-range.ts';

/** Spec sections 4 and 9: the report polls the job list every 15 s. */
export const REPORT_POLL_MS = 15_000;

/** The report's range (start of From to end of To, local time) and search, as the server's filter. */
export function reportFilter(range: DateRange, q: string): JobsListFilter {
  const bounds = rangeBounds(range);
  return { from: bounds.from?.toISOString(), to: bounds.to?.toISOString(), q };
}

/** The report as it opens: every date, no search. */
export const ALL_DATES: DateRange = { from: '', to: '' };

/**
 * The first page alone, which the 15 s poll reads again. A first page read less than a poll ago
 * is not asked for again when the report (re)appears.
 */
const headQuery = (userId: string, filter: JobsListFilter) =>
  queryOptions({
    queryKey: messageJobKeys.listHead(userId, filter),
    queryFn: ({ signal }) => fetchJobsPage(userId, filter, null, signal),
    staleTime: REPORT_POLL_MS,
  });

/**
 * The report's pages ('Load more jobs'). The first page they read is the head's too: the list
 * asks for it once, not once for the pages and again for the poll.
 */
export const reportPagesQuery = (userId: string, filter: JobsListFilter) =>
  infiniteQueryOptions({
    ...jobsListQuery(userId, filter),
    queryFn: async ({ pageParam, signal, client }) => {
      const page = await fetchJobsPage(userId, filter, pageParam, signal);
      if (pageParam === null) client.setQueryData(headQuery(userId, filter).queryKey, page);
      return page;
    },
    staleTime: REPORT_POLL_MS,
  });

/**
 * Reads the first page of the report as it opens (all dates, no search) into the cache, so that
 * the request runs while the app and the page's chunk are still loading (app/arrival.ts).
 */
export function prefetchReport(queryClient: QueryClient, userId: string): Promise<void> {
  return queryClient.prefetchInfiniteQuery(reportPagesQuery(userId, reportFilter(ALL_DATES, '')));
}

/**
 * The report's rows, one server page at a time ('Load more jobs'). Every 15 s only what can
 * have changed is read again: the first page (new jobs, running ones at the top), and the older
 * pages only while one of their jobs is still running — not the whole history.
 */
export function useReportJobs(userId: string, filter: JobsListFilter) {
  const pages = useInfiniteQuery(reportPagesQuery(userId, filter));
  const olderRunning = (pages.data?.pages.slice(1) ?? []).some((p) => p.jobs.some((j) => isActive(j.status)));
  const head = useQuery({
    ...headQuery(userId, filter),
    refetchInterval: REPORT_POLL_MS,
    // Until the pages have read this filter's first page (meanwhile the previous rows stand in).
    enabled: pages.isSuccess && !pages.isPlaceholderData,
  });
  useQuery({
    queryKey: messageJobKeys.listOlderRunning(userId, filter),
    queryFn: async () => {
      await pages.refetch();
      return null;
    },
    refetchInterval: REPORT_POLL_MS,
    enabled: olderRunning,
  });
  const jobs = useMemo(() => {
    const first = head.data?.jobs ?? [];
    const seen = new Set(first.map((j) => j.id));
    const rest = (pages.data?.pages ?? []).flatMap((p) => p.jobs).filter((j) => !seen.has(j.id));
    return [...first, ...rest];
  }, [head.data, pages.data]);
  const total = head.data?.total ?? pages.data?.pages[0]?.total ?? 0;
  return { pages, jobs, total };
}
