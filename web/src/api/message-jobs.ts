import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  JobDetailsResponse,
  JobsResponse,
  RetryResponse,
  SendBody,
  SendResponse,
  SuccessMessage,
} from '@wa/contract';
import { apiFetch } from '../lib/api.ts';

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

/** The largest page the jobs call gives (contract JobsQuery) and how many jobs the page loads at most. */
const JOBS_PAGE = 1_000;
const JOBS_MAX = 20_000;

/** GET /api/message-jobs/{userId}: every job of the user, newest first, read page by page. */
export async function fetchAllJobs(userId: string, signal?: AbortSignal): Promise<JobsResponse> {
  const base = `/api/message-jobs/${encodeURIComponent(userId)}`;
  const first = await apiFetch<JobsResponse>(`${base}?limit=${JOBS_PAGE}&offset=0`, { signal });
  const jobs = [...first.jobs];
  while (jobs.length < Math.min(first.total, JOBS_MAX)) {
    const next = await apiFetch<JobsResponse>(`${base}?limit=${JOBS_PAGE}&offset=${jobs.length}`, { signal });
    if (next.jobs.length === 0) break;
    jobs.push(...next.jobs);
  }
  return { ...first, jobs };
}

export const messageJobsQuery = (userId: string | null) =>
  queryOptions({
    queryKey: ['messageJobs', userId],
    queryFn: ({ signal }) => fetchAllJobs(userId!, signal),
    enabled: !!userId,
  });

export const useMessageJobs = (userId: string | null, refetchInterval?: number) =>
  useQuery({ ...messageJobsQuery(userId), refetchInterval });

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
    queryKey: ['messageJobDetails', jobId],
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

/** DELETE /api/message-jobs-details/{jobId}: cancels a running or scheduled job first (DECISIONS.md). */
export const deleteJob = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}`, { method: 'DELETE' });
