import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api.ts';
import { type SignInDeps, SignInError, signInFlow, TwoFactorNeeded } from './sign-in.ts';

const user = (role: 'USER' | 'ADMIN') => ({
  id: 'u1',
  name: 'Asha Rao',
  username: 'asha',
  role,
  setting: { is_bulk_messaging_enabled: 1 as const, is_multisession_supported: 0 as const },
  credits: { user_credits: 100000, admin_users: [] },
});

const account = (accountId: string) => ({
  id: accountId,
  sessionId: accountId,
  phoneNumber: accountId.split('_')[0],
  sessionName: `Name ${accountId}`,
  status: 'DISCONNECTED' as const,
  statusReason: null,
  createdAt: '2026-11-20T10:00:00.000Z',
});

type Routes = Record<string, (options?: { signal?: AbortSignal }) => Promise<unknown>>;

/** Deps whose `request` answers per path, recording every call and every status shown. */
function makeDeps(routes: Routes) {
  const calls: string[] = [];
  const statuses: string[] = [];
  const events: string[] = [];
  const deps: SignInDeps = {
    request: (async (path: string, options?: { signal?: AbortSignal }) => {
      calls.push(path);
      const handler = routes[path];
      if (!handler) throw new Error(`unexpected call ${path}`);
      return handler(options);
    }) as SignInDeps['request'],
    signIn: vi.fn(),
    setAccounts: vi.fn(),
    setStatus: (s) => {
      statuses.push(s);
      events.push(`status:${s}`);
    },
    navigate: vi.fn((path: string) => {
      events.push(`navigate:${path}`);
    }),
    sleep: vi.fn(async (ms: number) => {
      events.push(`sleep:${ms}`);
    }),
  };
  return { deps, calls, statuses, events };
}

const loginOk = (role: 'USER' | 'ADMIN') => async () => ({
  success: true,
  message: 'Login successful',
  token: 'tok',
  user: user(role),
});

describe('signInFlow', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
  beforeEach(() => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  it('asks for the code when two-factor sign-in is on, then sends it with the password', async () => {
    const bodies: unknown[] = [];
    const { deps } = makeDeps({});
    deps.request = (async (_path: string, options?: { body?: { otp?: string } }) => {
      bodies.push(options?.body);
      if (!options?.body?.otp) {
        const message = 'Enter the 6-digit code from your authenticator app';
        throw new ApiError(401, message, message);
      }
      return loginOk('ADMIN')();
    }) as SignInDeps['request'];
    const first = signInFlow('admin', 'pw', deps);
    await expect(first).rejects.toBeInstanceOf(TwoFactorNeeded);
    await expect(first).rejects.toThrow('Enter the 6-digit code from your authenticator app');
    await signInFlow('admin', 'pw', deps, '123456');
    expect(bodies).toEqual([
      { username: 'admin', password: 'pw' },
      { username: 'admin', password: 'pw', otp: '123456' },
    ]);
    expect(deps.navigate).toHaveBeenCalledWith('/adminDashboard');
  });

  it('stores the user and sends an ADMIN straight to /adminDashboard without touching sessions', async () => {
    const { deps, calls, statuses } = makeDeps({ '/api/auth/login': loginOk('ADMIN') });
    await signInFlow('admin', 'pw', deps);
    expect(deps.signIn).toHaveBeenCalledWith('tok', user('ADMIN'));
    expect(deps.navigate).toHaveBeenCalledWith('/adminDashboard');
    expect(calls).toEqual(['/api/auth/login']);
    expect(statuses).toEqual([]);
  });

  it('restarts every session of a user, then redirects to /dashboard 1 s later', async () => {
    const accounts = [account('919800000001_a'), account('919800000002_b')];
    const { deps, calls, events } = makeDeps({
      '/api/auth/login': loginOk('USER'),
      '/api/sessions': async () => ({ success: true, sessions: accounts }),
      '/api/session/919800000001_a/restart': async () => ({ success: true }),
      '/api/session/919800000002_b/restart': async () => ({ success: true }),
    });
    await signInFlow('asha', 'pw', deps);
    expect(calls).toEqual([
      '/api/auth/login',
      '/api/sessions',
      '/api/session/919800000001_a/restart',
      '/api/session/919800000002_b/restart',
    ]);
    expect(deps.setAccounts).toHaveBeenCalledWith([
      { sessionId: '919800000001_a', sessionName: 'Name 919800000001_a' },
      { sessionId: '919800000002_b', sessionName: 'Name 919800000002_b' },
    ]);
    expect(events[0]).toBe('status:Fetching active sessions...');
    expect(events.slice(-2)).toEqual(['sleep:1000', 'navigate:/dashboard']);
  });

  it('says so when there are no sessions, then redirects to /dashboard', async () => {
    const { deps, events } = makeDeps({
      '/api/auth/login': loginOk('USER'),
      '/api/sessions': async () => ({ success: true, sessions: [] }),
    });
    await signInFlow('asha', 'pw', deps);
    expect(events).toEqual([
      'status:Fetching active sessions...',
      'status:No active sessions found. Redirecting to dashboard...',
      'sleep:1000',
      'navigate:/dashboard',
    ]);
  });

  it('reports a network error on the sessions call and still redirects', async () => {
    const { deps, events } = makeDeps({
      '/api/auth/login': loginOk('USER'),
      '/api/sessions': async () => {
        throw new ApiError(500, 'HTTP error! status: 500', null);
      },
    });
    await signInFlow('asha', 'pw', deps);
    expect(events).toEqual([
      'status:Fetching active sessions...',
      'status:Network error or server unavailable. Redirecting to dashboard...',
      'sleep:1000',
      'navigate:/dashboard',
    ]);
    expect(console.error).toHaveBeenCalledWith(
      'Error fetching sessions: Server returned 500: HTTP error! status: 500',
    );
  });

  it("gives up on the sessions call after 10 s with 'Request timeout' and aborts it", async () => {
    vi.useFakeTimers();
    let aborted = false;
    const { deps, events } = makeDeps({
      '/api/auth/login': loginOk('USER'),
      '/api/sessions': (options) =>
        new Promise(() => {
          options?.signal?.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    });
    const done = signInFlow('asha', 'pw', deps);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(events).toEqual(['status:Fetching active sessions...']);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(aborted).toBe(true);
    expect(console.error).toHaveBeenCalledWith('Error fetching sessions: Request timeout');
    expect(events.slice(1)).toEqual([
      'status:Network error or server unavailable. Redirecting to dashboard...',
      'sleep:1000',
      'navigate:/dashboard',
    ]);
  });

  it('redirects even when a restart fails', async () => {
    const { deps, events } = makeDeps({
      '/api/auth/login': loginOk('USER'),
      '/api/sessions': async () => ({ success: true, sessions: [account('91_a')] }),
      '/api/session/91_a/restart': async () => {
        throw new ApiError(500, 'HTTP error! status: 500', null);
      },
    });
    await signInFlow('asha', 'pw', deps);
    expect(events.slice(-2)).toEqual(['sleep:1000', 'navigate:/dashboard']);
  });

  it("fails with the server's message when the sign-in is refused", async () => {
    const { deps } = makeDeps({
      '/api/auth/login': async () => {
        throw new ApiError(401, 'Invalid username or password', 'Invalid username or password');
      },
    });
    await expect(signInFlow('asha', 'bad', deps)).rejects.toEqual(
      new SignInError('Invalid username or password'),
    );
    expect(deps.signIn).not.toHaveBeenCalled();
    expect(deps.navigate).not.toHaveBeenCalled();
  });

  it("fails with 'Login failed' when the server gives no message", async () => {
    const { deps } = makeDeps({
      '/api/auth/login': async () => {
        throw new ApiError(500, 'HTTP error! status: 500', null);
      },
    });
    await expect(signInFlow('asha', 'pw', deps)).rejects.toThrow(/^Login failed$/);
  });

  it("fails with 'Something went wrong. Please try again.' when the server cannot be reached", async () => {
    const { deps } = makeDeps({
      '/api/auth/login': async () => {
        throw new TypeError('Failed to fetch');
      },
    });
    await expect(signInFlow('asha', 'pw', deps)).rejects.toThrow(
      /^Something went wrong\. Please try again\.$/,
    );
  });
});
