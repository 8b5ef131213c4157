import { useState } from 'react';
import { useSessions } from '../features/instances/api/get-sessions.ts';
import { storage } from '../lib/storage.ts';

/**
 * The session a page works on: in multi-session mode ('1') the user's pick (kept in
 * `currentSessionId`); otherwise the first session.
 */
export function useCurrentSession() {
  const sessions = useSessions();
  const multi = storage.isMultiSession();
  const [picked, setPicked] = useState<string | null>(storage.currentSessionId());
  const list = sessions.data ?? [];
  const current = (multi && picked && list.find((s) => s.sessionId === picked)) || list[0] || null;
  const choose = (id: string | null) => {
    setPicked(id);
    storage.setCurrentSessionId(id);
  };
  return {
    sessions: list,
    loading: sessions.isLoading,
    error: sessions.error,
    multi,
    sessionId: current?.sessionId ?? null,
    session: current,
    choose,
  };
}
