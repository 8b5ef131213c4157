import type { CreateInstanceBody, SessionStatus, SuccessMessage } from '@wa/contract';
import { sessionKeys } from '../../api/sessions.ts';
import { apiFetch } from '../../lib/api.ts';
import { useApiMutation } from '../../lib/mutation.ts';

/** Every instance mutation changes the sessions list. */
const useSessionMutation = <TVars, TData>(fn: (vars: TVars) => Promise<TData>) =>
  useApiMutation(fn, [sessionKeys.all]);

/** POST /api/create-instance → the new session's id. */
export const createInstance = (body: CreateInstanceBody) =>
  apiFetch<{ success: true; message: string; sessionId: string }>('/api/create-instance', {
    method: 'POST',
    body,
  });
export const useCreateInstance = () => useSessionMutation(createInstance);

/** POST /api/session/{sessionId}/restart: a new QR cycle for a session that is not connected. */
export const restartSession = (sessionId: string) =>
  apiFetch<{ success: boolean; message: string; status: SessionStatus }>(
    `/api/session/${encodeURIComponent(sessionId)}/restart`,
    { method: 'POST' },
  );
export const useRestartSession = () => useSessionMutation(restartSession);

/** POST /api/session/{sessionId}/terminate. */
export const terminateSession = (sessionId: string) =>
  apiFetch<SuccessMessage>(`/api/session/${encodeURIComponent(sessionId)}/terminate`, { method: 'POST' });
export const useTerminateSession = () => useSessionMutation(terminateSession);

/** POST /api/session/{sessionId}/resume: lifts a pause set by WhatsApp's limits (error 463, quota). */
export const resumeSending = (sessionId: string) =>
  apiFetch<SuccessMessage>(`/api/session/${encodeURIComponent(sessionId)}/resume`, { method: 'POST' });
export const useResumeSending = () => useSessionMutation(resumeSending);
