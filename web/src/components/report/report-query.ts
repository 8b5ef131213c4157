import { queryOptions, useQuery } from '@tanstack/react-query';
import type { JobsResponse, MessageJob } from '@wa/contract';
import { apiFetch } from '../../lib/api.ts';
import { type DateRange, inRange, rangeBounds } from './report-rows.ts';

/** Spec sections 4 and 9: the report polls the job list every 15 s. */
export const REPORT_POLL_MS = 15_000;

/** The server's largest page (contract JobsQuery). */
const PAGE = 1000;

/**
 * GET /api/message-jobs/{userId}?from=&to=&limit=&offset=: every job of the user in the range,
 * page after page. The bounds are also applied here, so that the inclusive ends hold whatever
 * the server's comparison.
 */
async function fetchReportJobs(userId: string, range: DateRange, signal: AbortSignal): Promise<MessageJob[]> {
  const bounds = rangeBounds(range);
  const jobs: MessageJob[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    if (bounds.from) params.set('from', bounds.from.toISOString());
    if (bounds.to) params.set('to', bounds.to.toISOString());
    const page = await apiFetch<JobsResponse>(`/api/message-jobs/${encodeURIComponent(userId)}?${params}`, {
      signal,
    });
    jobs.push(...page.jobs);
    if (page.jobs.length < PAGE || jobs.length >= page.total) break;
  }
  return jobs.filter((j) => inRange(j.createdAt, bounds));
}

export const reportJobsQuery = (userId: string, range: DateRange) =>
  queryOptions({
    queryKey: ['messageJobs', userId, 'report', range.from, range.to],
    queryFn: ({ signal }) => fetchReportJobs(userId, range, signal),
    refetchInterval: REPORT_POLL_MS,
    // While another range loads, the same user's rows stay on screen (never another user's).
    placeholderData: (previous, previousQuery) =>
      previousQuery?.queryKey[1] === userId ? previous : undefined,
  });

export const useReportJobs = (userId: string, range: DateRange) => useQuery(reportJobsQuery(userId, range));
