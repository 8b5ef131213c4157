import { type AccountsResponse, type LoginResponse, TWO_FACTOR_MESSAGES } from '@wa/contract';
import { ApiError, apiFetch } from '../../lib/api.ts';
import { storage } from '../../lib/storage.ts';

/** The sessions call is raced against 10 s; the redirect follows 1 s later. */
export const ACCOUNTS_TIMEOUT_MS = 10_000;
export const REDIRECT_DELAY_MS = 1_000;

export const STATUS = {
  fetching: 'Fetching active sessions...',
  noAccounts: 'No active sessions found. Redirecting to dashboard...',
  networkError: 'Network error or server unavailable. Redirecting to dashboard...',
} as const;

/** The page shows this when sign-in itself fails (docs/decisions.md, Kept to the letter). */
export class SignInError extends Error {}

/** Two-factor sign-in is on: the page asks for the code (the message says why: none, or a wrong one). */
export class TwoFactorNeeded extends SignInError {}

const TWO_FACTOR_ANSWERS: readonly string[] = [TWO_FACTOR_MESSAGES.codeNeeded, TWO_FACTOR_MESSAGES.codeWrong];

export type SignInDeps = {
  request: <T>(path: string, options?: Parameters<typeof apiFetch>[1]) => Promise<T>;
  signIn: (token: string, user: LoginResponse['user']) => void;
  setAccounts: typeof storage.setAccounts;
  setStatus: (status: string) => void;
  navigate: (path: string) => void;
  sleep: (ms: number) => Promise<void>;
};

export const defaultDeps = (
  setStatus: SignInDeps['setStatus'],
  navigate: SignInDeps['navigate'],
): SignInDeps => ({
  request: apiFetch,
  signIn: (token, user) => storage.signIn(token, user),
  setAccounts: (list) => storage.setAccounts(list),
  setStatus,
  navigate,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
});

/** Runs `call` with an abort signal, failing with 'Request timeout' after `ms`. */
async function withTimeout<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error('Request timeout'));
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The sign-in flow of the specification: sign in and store the user; ADMIN goes to
 * /adminDashboard; anyone else has every session restarted (the sessions call raced against
 * 10 s) and goes to /dashboard 1 s after, whatever happened to the accounts.
 * Throws `SignInError` with the spec's text when the sign-in itself fails.
 */
export async function signInFlow(
  username: string,
  password: string,
  deps: SignInDeps,
  otp?: string,
): Promise<void> {
  let login: LoginResponse;
  try {
    login = await deps.request<LoginResponse>('/api/auth/login', {
      method: 'POST',
      body: otp ? { username, password, otp } : { username, password },
      credentials: 'include',
    });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && TWO_FACTOR_ANSWERS.includes(err.serverMessage ?? ''))
      throw new TwoFactorNeeded(err.serverMessage!);
    if (err instanceof ApiError) throw new SignInError(err.serverMessage ?? 'Login failed');
    throw new SignInError('Something went wrong. Please try again.');
  }
  if (!login?.token || !login.user) throw new SignInError(login?.message || 'Login failed');

  deps.signIn(login.token, login.user);
  if (login.user.role === 'ADMIN') {
    deps.navigate('/adminDashboard');
    return;
  }

  deps.setStatus(STATUS.fetching);
  let accounts: AccountsResponse['sessions'];
  try {
    const data = await withTimeout(ACCOUNTS_TIMEOUT_MS, (signal) =>
      deps.request<AccountsResponse>('/api/sessions', { signal }),
    );
    accounts = data.sessions ?? [];
  } catch (err) {
    const reason =
      err instanceof ApiError
        ? `Server returned ${err.status}: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err);
    console.error(`Error fetching sessions: ${reason}`);
    deps.setStatus(STATUS.networkError);
    await deps.sleep(REDIRECT_DELAY_MS);
    deps.navigate('/dashboard');
    return;
  }

  deps.setAccounts(accounts.map((s) => ({ sessionId: s.sessionId, sessionName: s.sessionName })));
  if (accounts.length === 0) {
    deps.setStatus(STATUS.noAccounts);
    await deps.sleep(REDIRECT_DELAY_MS);
    deps.navigate('/dashboard');
    return;
  }

  deps.setStatus(`Reconnecting ${accounts.length} session${accounts.length === 1 ? '' : 's'}...`);
  const results = await Promise.allSettled(
    accounts.map((s) =>
      deps.request<unknown>(`/api/session/${encodeURIComponent(s.sessionId)}/restart`, {
        method: 'POST',
      }),
    ),
  );
  const failed = results.filter((r) => r.status === 'rejected').length;
  for (const r of results) {
    if (r.status === 'rejected') console.error('Failed to restart a session:', r.reason);
  }
  deps.setStatus(
    failed === 0
      ? 'Sessions reconnected. Redirecting to dashboard...'
      : `${failed} of ${accounts.length} sessions could not be restarted. Redirecting to dashboard...`,
  );
  await deps.sleep(REDIRECT_DELAY_MS);
  deps.navigate('/dashboard');
}
