import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Session, SessionsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { storage } from '../../../lib/storage.ts';
import { sessionKeys } from './keys.ts';

export { sessionKeys };

/** GET /api/sessions; keeps `sessionsArray` in storage in step. */
export const sessionsQuery = () =>
  queryOptions({
    queryKey: sessionKeys.all,
    queryFn: async (): Promise<Session[]> => {
      const data = await apiFetch<SessionsResponse>('/api/sessions');
      storage.setSessions(data.sessions.map((s) => ({ sessionId: s.sessionId, sessionName: s.sessionName })));
      return data.sessions;
    },
  });

export const useSessions = () => useQuery(sessionsQuery());
