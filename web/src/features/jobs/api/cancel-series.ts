import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';
import { messageJobKeys } from './keys.ts';

/** POST /api/message-jobs-details/{jobId}/cancel-series ('Series cancelled'): no more occurrences of a repeating job. */
export const cancelSeries = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}/cancel-series`, {
    method: 'POST',
  });
// A cancelled occurrence that held credits gives them back.
export const useCancelSeries = () => useApiMutation(cancelSeries, [messageJobKeys.all, userDetailsKeys.all]);
