import type { RetryResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';
import { messageJobKeys } from './keys.ts';

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
