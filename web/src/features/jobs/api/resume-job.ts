import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { messageJobKeys } from './keys.ts';

/** POST /api/message-jobs-details/{jobId}/resume ('Job resumed'). */
export const resumeJob = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}/resume`, {
    method: 'POST',
  });
export const useResumeJob = () => useApiMutation(resumeJob, [messageJobKeys.all]);
