import { useState } from 'react';
import { useSessions } from '../features/instances/api/get-sessions.ts';
import { type Capability, can } from '../lib/capabilities.ts';
import { storage } from '../lib/storage.ts';

/**
 * The session a page works on: in multi-session mode ('1') the user's pick (kept in
 * `currentSessionId`); otherwise the first session. With `capability`, only the accounts that
 * can do the page's action are offered (no Cloud API number on a groups page).
 */
export function useCurrentSession(capability?: Capability) {
  const sessions = useSessions();
  const multi = storage.isMultiSession();
  const [picked, setPicked] = useState<string | null>(storage.currentSessionId());
  const all = sessions.data ?? [];
  const list = capability ? all.filter((s) => can(s, capability)) : all;
  const current = (multi && picked && list.find((s) => s.sessionId === picked)) || list[0] || null;
  const choose = (id: string | null) => {
    setPicked(id);
    storage.setCurrentSessionId(id);
  };
  return {
    sessions: list,
    /** Accounts the user has that cannot do the page's action (a note says why they are not offered). */
    unable: all.length - list.length,
    loading: sessions.isLoading,
    error: sessions.error,
    multi,
    sessionId: current?.sessionId ?? null,
    session: current,
    choose,
  };
}
