import type { SessionStatus } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { sessionKeys } from './keys.ts';

/** POST /api/session/{sessionId}/restart: a new QR cycle for a session that is not connected. */
export const restartSession = (sessionId: string) =>
  apiFetch<{ success: boolean; message: string; status: SessionStatus }>(
    `/api/session/${encodeURIComponent(sessionId)}/restart`,
    { method: 'POST' },
  );
export const useRestartSession = () => useApiMutation(restartSession, [sessionKeys.all]);
