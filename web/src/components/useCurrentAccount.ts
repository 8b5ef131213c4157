import { useState } from 'react';
import { useAccounts } from '../features/instances/api/get-accounts.ts';
import { type Capability, can } from '../lib/capabilities.ts';
import { storage } from '../lib/storage.ts';

/**
 * The account a page works on: in multi-session mode ('1') the user's pick (kept in
 * `currentSessionId`); otherwise the first account. With `capability`, only the accounts that
 * can do the page's action are offered (no Cloud API number on a groups page).
 */
export function useCurrentAccount(capability?: Capability) {
  const accounts = useAccounts();
  const multi = storage.isMultiSession();
  const [picked, setPicked] = useState<string | null>(storage.currentAccountId());
  const all = accounts.data ?? [];
  const list = capability ? all.filter((s) => can(s, capability)) : all;
  const current = (multi && picked && list.find((s) => s.sessionId === picked)) || list[0] || null;
  const choose = (id: string | null) => {
    setPicked(id);
    storage.setCurrentAccountId(id);
  };
  return {
    accounts: list,
    /** Accounts the user has that cannot do the page's action (a note says why they are not offered). */
    unable: all.length - list.length,
    loading: accounts.isLoading,
    error: accounts.error,
    multi,
    accountId: current?.sessionId ?? null,
    account: current,
    choose,
  };
}
