import { queryOptions, useQuery } from '@tanstack/react-query';
import type { JobDetailsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { messageJobKeys } from './keys.ts';

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
