/**
 * The browser session's storage (sessionStorage), with exactly the keys of the specification (docs/decisions.md, Kept to the letter).
 * Components read through these helpers, never sessionStorage directly.
 */
export const KEYS = {
  token: 'token',
  userRole: 'userRole',
  userId: 'userId',
  loggedInUserName: 'loggedInUserName',
  userCreditsAvailable: 'userCreditsAvailable',
  isBulkMessagingEnabled: 'isBulkMessagingEnabled',
  isMultiSessionEnabled: 'isMultiSessionEnabled',
  sessionsArray: 'sessionsArray',
  currentSessionId: 'currentSessionId',
  AdminUsers: 'AdminUsers',
} as const;

export type StoredAccount = { sessionId: string; sessionName: string };
export type AdminUser = { user_id: string; username: string; name?: string };

const get = (key: string): string | null => window.sessionStorage.getItem(key);
const set = (key: string, value: string) => window.sessionStorage.setItem(key, value);

function getJson<T>(key: string, fallback: T): T {
  const raw = get(key);
  if (!raw) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

const listeners = new Set<() => void>();
/** Lets React re-read values that changed (balance, accounts) through useSyncExternalStore. */
export function subscribeStorage(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const changed = () => {
  for (const l of listeners) l();
};

export const storage = {
  token: () => get(KEYS.token),
  userRole: () => get(KEYS.userRole),
  userId: () => get(KEYS.userId),
  userName: () => get(KEYS.loggedInUserName) ?? '',
  isAdmin: () => get(KEYS.userRole) === 'ADMIN',
  credits: () => Number(get(KEYS.userCreditsAvailable) ?? 0),
  isBulkEnabled: () => get(KEYS.isBulkMessagingEnabled) === '1',
  /** '1' means multi-session. */
  isMultiSession: () => get(KEYS.isMultiSessionEnabled) === '1',
  sessions: () => getJson<StoredAccount[]>(KEYS.sessionsArray, []),
  currentAccountId: () => get(KEYS.currentSessionId),
  adminUsers: () => getJson<AdminUser[]>(KEYS.AdminUsers, []),

  setCredits(n: number) {
    set(KEYS.userCreditsAvailable, String(n));
    changed();
  },
  setAccounts(list: StoredAccount[]) {
    set(KEYS.sessionsArray, JSON.stringify(list));
    changed();
  },
  setCurrentAccountId(id: string | null) {
    if (id) set(KEYS.currentSessionId, id);
    else window.sessionStorage.removeItem(KEYS.currentSessionId);
    changed();
  },
  /** A new token for this browser (the password change ends every other sign-in). */
  setToken(token: string) {
    set(KEYS.token, token);
    changed();
  },
  setAdminUsers(list: AdminUser[]) {
    set(KEYS.AdminUsers, JSON.stringify(list));
    changed();
  },
  /** Stores the signed-in user as the login response gives it. */
  signIn(
    token: string,
    user: {
      id: string;
      name: string;
      role: string;
      setting: { is_bulk_messaging_enabled: number; is_multisession_supported: number };
      credits: { user_credits: number; admin_users: AdminUser[] };
    },
  ) {
    set(KEYS.token, token);
    set(KEYS.userRole, user.role);
    set(KEYS.userId, user.id);
    set(KEYS.loggedInUserName, user.name);
    set(KEYS.userCreditsAvailable, String(user.credits.user_credits));
    set(KEYS.isBulkMessagingEnabled, String(user.setting.is_bulk_messaging_enabled));
    set(KEYS.isMultiSessionEnabled, String(user.setting.is_multisession_supported));
    set(KEYS.AdminUsers, JSON.stringify(user.credits.admin_users));
    changed();
  },
  clear() {
    window.sessionStorage.clear();
    changed();
  },
};
