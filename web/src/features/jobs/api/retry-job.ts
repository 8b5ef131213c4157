import type { RetryResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';
import { messageJobKeys } from './keys.ts';

/** POST /api/message-jobs-details/{jobId}/retry: queues the failed recipients again (and charges them). */
/** `includeDeliveryUnknown`: also the failures whose delivery is unknown (a copy may arrive twice). */
export const retryJob = (jobId: string, accountId: string, includeDeliveryUnknown = false) =>
  apiFetch<RetryResponse>(`/api/message-jobs-details/${encodeURIComponent(jobId)}/retry`, {
    method: 'POST',
    body: { sessionId: accountId, ...(includeDeliveryUnknown ? { includeDeliveryUnknown } : {}) },
  });
export const useRetryJob = () =>
  useApiMutation(
    (v: { jobId: string; accountId: string; includeDeliveryUnknown?: boolean }) =>
      retryJob(v.jobId, v.accountId, v.includeDeliveryUnknown),
    [messageJobKeys.all, userDetailsKeys.all],
  );
