import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { healthKeys } from './get-health.ts';
import { accountKeys } from './keys.ts';

/** POST /api/session/{sessionId}/resume: lifts a pause set by WhatsApp's limits (error 463, quota). */
export const resumeSending = (accountId: string) =>
  apiFetch<SuccessMessage>(`/api/session/${encodeURIComponent(accountId)}/resume`, { method: 'POST' });
// The account's health shows the pause too.
export const useResumeSending = () => useApiMutation(resumeSending, [accountKeys.all, healthKeys.all]);
