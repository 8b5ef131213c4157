import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';
import { messageJobKeys } from './keys.ts';

/** DELETE /api/message-jobs-details/{jobId}: cancels a running or scheduled job first (docs/decisions.md, Deleting a job). */
export const deleteJob = (jobId: string) =>
  apiFetch<SuccessMessage>(`/api/message-jobs-details/${encodeURIComponent(jobId)}`, { method: 'DELETE' });
export const useDeleteJob = () => useApiMutation(deleteJob, [messageJobKeys.all, userDetailsKeys.all]);
