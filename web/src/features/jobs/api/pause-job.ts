import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { messageJobKeys } from './keys.ts';

/** POST /api/message-jobs-details/{jobId}/pause ('Job paused'). */
export const pauseJob = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}/pause`, {
    method: 'POST',
  });
export const usePauseJob = () => useApiMutation(pauseJob, [messageJobKeys.all]);
