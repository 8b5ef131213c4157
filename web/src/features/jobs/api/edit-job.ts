import type { EditJobBody, EditJobResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';
import { messageJobKeys } from './keys.ts';

/**
 * PATCH /api/message-jobs-details/{jobId} with the new time, text and recipients of a job that
 * has not started: the credits held follow the recipients (charged or refunded).
 */
export const editJob = (jobId: string, body: EditJobBody) =>
  apiFetch<EditJobResponse>(`/api/message-jobs-details/${encodeURIComponent(jobId)}`, {
    method: 'PATCH',
    body,
  });
export const useEditJob = () =>
  useApiMutation(
    (v: { jobId: string; body: EditJobBody }) => editJob(v.jobId, v.body),
    [messageJobKeys.all, userDetailsKeys.all],
  );
