import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  FollowUpBody,
  FollowUpResponse,
  FollowUpSegment,
  SegmentListResponse,
  SegmentsResponse,
  SuccessMessage,
} from '@wa/contract';
import { apiFetch, newIdempotencyKey } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';
import { messageJobKeys } from './keys.ts';

const jobPath = (jobId: string) => `/api/message-jobs/${encodeURIComponent(jobId)}`;

/** GET /api/message-jobs/{jobId}/segments: how many recipients each follow-up segment holds. */
export const segmentsQuery = (jobId: string | null) =>
  queryOptions({
    queryKey: [...messageJobKeys.all, 'segments', jobId] as const,
    queryFn: ({ signal }) => apiFetch<SegmentsResponse>(`${jobPath(jobId!)}/segments`, { signal }),
    enabled: !!jobId,
  });
export const useSegments = (jobId: string | null) => useQuery(segmentsQuery(jobId));

/** POST /api/message-jobs/{jobId}/follow-up: a new job for one segment (charged as a send). */
export const followUp = (jobId: string, body: FollowUpBody) =>
  apiFetch<FollowUpResponse>(`${jobPath(jobId)}/follow-up`, {
    method: 'POST',
    body,
    headers: { 'idempotency-key': newIdempotencyKey() },
  });
export const useFollowUp = () =>
  useApiMutation(
    (v: { jobId: string; body: FollowUpBody }) => followUp(v.jobId, v.body),
    [messageJobKeys.all, userDetailsKeys.all],
  );

/** POST /api/message-jobs/{jobId}/segments/{segment}/contact-list: the segment as a new contact list. */
export const saveSegmentList = (jobId: string, segment: FollowUpSegment, name: string) =>
  apiFetch<SegmentListResponse>(`${jobPath(jobId)}/segments/${segment}/contact-list`, {
    method: 'POST',
    body: { name },
  });
export const useSaveSegmentList = () =>
  useApiMutation(
    (v: { jobId: string; segment: FollowUpSegment; name: string }) =>
      saveSegmentList(v.jobId, v.segment, v.name),
    [],
  );

/** POST /api/message-jobs/{jobId}/follow-ups/{id}/cancel ('Follow-up cancelled'): a scheduled follow-up that waits. */
export const cancelFollowUp = (jobId: string, followUpId: string) =>
  apiFetch<SuccessMessage>(`${jobPath(jobId)}/follow-ups/${encodeURIComponent(followUpId)}/cancel`, {
    method: 'POST',
  });
export const useCancelFollowUp = () =>
  useApiMutation(
    (v: { jobId: string; followUpId: string }) => cancelFollowUp(v.jobId, v.followUpId),
    [messageJobKeys.all],
  );
