import type { CreateInstanceBody, SessionStatus, SuccessMessage } from '@wa/contract';
import { apiFetch } from '../../lib/api.ts';

/** Instance limit of multi-session users (single-session users have 1; DECISIONS.md). */
export const MAX_INSTANCES_MULTI = 10;

/** POST /api/create-instance → the new session's id. */
export const createInstance = (body: CreateInstanceBody) =>
  apiFetch<{ success: true; message: string; sessionId: string }>('/api/create-instance', {
    method: 'POST',
    body,
  });

/** POST /api/session/{sessionId}/restart: a new QR cycle for a session that is not connected. */
export const restartSession = (sessionId: string) =>
  apiFetch<{ success: boolean; message: string; status: SessionStatus }>(
    `/api/session/${encodeURIComponent(sessionId)}/restart`,
    { method: 'POST' },
  );

/** POST /api/session/{sessionId}/terminate. */
export const terminateSession = (sessionId: string) =>
  apiFetch<SuccessMessage>(`/api/session/${encodeURIComponent(sessionId)}/terminate`, { method: 'POST' });

/** POST /api/session/{sessionId}/resume: lifts a pause set by WhatsApp's limits (error 463, quota). */
export const resumeSending = (sessionId: string) =>
  apiFetch<SuccessMessage>(`/api/session/${encodeURIComponent(sessionId)}/resume`, { method: 'POST' });
