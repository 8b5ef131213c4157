import {
  infiniteQueryOptions,
  keepPreviousData,
  queryOptions,
  useInfiniteQuery,
  useQuery,
} from '@tanstack/react-query';
import type {
  JobDetailsResponse,
  JobsQuery,
  JobsResponse,
  RetryResponse,
  SendBody,
  SendResponse,
  SuccessMessage,
} from '@wa/contract';
import { apiFetch } from '../lib/api.ts';
import { useApiMutation } from '../lib/mutation.ts';
import { userDetailsKeys } from './user-details.ts';

/** Jobs page refresh (spec section 9: 15001 ms). */
export const JOBS_REFRESH_MS = 15_001;

/**
 * POST /api/session/{sessionId}/sendBulkMessage (groups) or /sendIndividualMessage (phone
 * numbers as digits; the server adds the contact suffix). One `idempotencyKey` per click.
 */
export function sendMessage(
  sessionId: string,
  audience: 'groups' | 'individuals',
  body: SendBody,
  idempotencyKey: string,
): Promise<SendResponse> {
  const action = audience === 'groups' ? 'sendBulkMessage' : 'sendIndividualMessage';
  return apiFetch<SendResponse>(`/api/session/${encodeURIComponent(sessionId)}/${action}`, {
    method: 'POST',
    body,
    headers: { 'idempotency-key': idempotencyKey },
  });
}

/** Query keys of the message-jobs area: every list, page and detail lives under `all`. */
export const messageJobKeys = {
  all: ['messageJobs'] as const,
  list: (userId: string | null, filter: JobsListFilter) => ['messageJobs', 'list', userId, filter] as const,
  details: (jobId: string | null, part: 'recipients' | 'media') =>
    ['messageJobs', 'details', jobId, part] as const,
};

/** What a list asks the server for: the tab's status, the search and the date range (ISO instants). */
export type JobsListFilter = { status?: JobsQuery['status']; q?: string; from?: string; to?: string };

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

/**
 * GET /api/message-jobs-details/{jobId}. The send page's 2-second poll asks for neither the
 * recipients nor the media (`detailsLimit=0&media=0`).
 */
export function getJobDetails(
  jobId: string,
  opts: { detailsLimit?: number; media?: boolean; signal?: AbortSignal } = {},
): Promise<JobDetailsResponse> {
  const params = new URLSearchParams();
  if (opts.detailsLimit !== undefined) params.set('detailsLimit', String(opts.detailsLimit));
  if (opts.media === false) params.set('media', '0');
  const query = params.size ? `?${params}` : '';
  return apiFetch<JobDetailsResponse>(`/api/message-jobs-details/${encodeURIComponent(jobId)}${query}`, {
    signal: opts.signal,
  });
}

/** The details modal: the first `DETAILS_PAGE` recipients, without the file body. */
export const DETAILS_PAGE = 5_000;

export const jobDetailsQuery = (jobId: string | null) =>
  queryOptions({
    queryKey: messageJobKeys.details(jobId, 'recipients'),
    queryFn: ({ signal }) => getJobDetails(jobId!, { detailsLimit: DETAILS_PAGE, media: false, signal }),
    enabled: !!jobId,
  });

export const useJobDetails = (jobId: string | null) => useQuery(jobDetailsQuery(jobId));

/** POST /api/message-jobs-details/{jobId}/retry: queues the failed recipients again (and charges them). */
export const retryJob = (jobId: string, sessionId: string) =>
  apiFetch<RetryResponse>(`/api/message-jobs-details/${encodeURIComponent(jobId)}/retry`, {
    method: 'POST',
    body: { sessionId },
  });
export const useRetryJob = () =>
  useApiMutation(
    (v: { jobId: string; sessionId: string }) => retryJob(v.jobId, v.sessionId),
    [messageJobKeys.all, userDetailsKeys.all],
  );

/** DELETE /api/message-jobs-details/{jobId}: cancels a running or scheduled job first (DECISIONS.md). */
export const deleteJob = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}`, { method: 'DELETE' });
export const useDeleteJob = () => useApiMutation(deleteJob, [messageJobKeys.all, userDetailsKeys.all]);

/** POST /api/message-jobs-details/{jobId}/pause ('Job paused') and /resume ('Job resumed'). */
export const pauseJob = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}/pause`, {
    method: 'POST',
  });
export const resumeJob = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}/resume`, {
    method: 'POST',
  });
export const usePauseJob = () => useApiMutation(pauseJob, [messageJobKeys.all]);
export const useResumeJob = () => useApiMutation(resumeJob, [messageJobKeys.all]);

/** POST /api/message-jobs-details/{jobId}/cancel-series ('Series cancelled'): no more occurrences of a repeating job. */
export const cancelSeries = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}/cancel-series`, {
    method: 'POST',
  });
export const useCancelSeries = () => useApiMutation(cancelSeries, [messageJobKeys.all]);
