import type { SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { sessionKeys } from './keys.ts';

/** POST /api/session/{sessionId}/terminate. */
export const terminateSession = (sessionId: string) =>
  apiFetch<SuccessMessage>(`/api/session/${encodeURIComponent(sessionId)}/terminate`, { method: 'POST' });
export const useTerminateSession = () => useApiMutation(terminateSession, [sessionKeys.all]);
