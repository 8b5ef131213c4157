import crypto from 'node:crypto';
import path from 'node:path';
import { type APIRequestContext, test as base, expect, type Page } from '@playwright/test';

export const ADMIN = { username: 'admin', password: 'admin-e2e-password' };

export type TestUser = { id: string; username: string; password: string; name: string };

async function json<T>(res: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
  if (!res.ok()) throw new Error(`${res.url()} → ${res.status()} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function apiLogin(request: APIRequestContext, username: string, password: string) {
  return json<{ token: string; user: Record<string, unknown> }>(
    await request.post('/api/auth/login', { data: { username, password } }),
  );
}

/** Creates a user through the admin API (the real product path). */
export async function createUser(
  request: APIRequestContext,
  opts: { credits?: number; bulk?: boolean; multi?: boolean; name?: string } = {},
): Promise<TestUser> {
  const { token } = await apiLogin(request, ADMIN.username, ADMIN.password);
  const username = `u${crypto.randomBytes(4).toString('hex')}`;
  const password = 'password123';
  const name = opts.name ?? 'Test User';
  const body = await json<{ user: { id: string } }>(
    await request.post('/api/admin/users', {
      headers: { authorization: `Bearer ${token}` },
      data: {
        username,
        password,
        name,
        credits: opts.credits ?? 0,
        is_bulk_messaging_enabled: opts.bulk ?? true,
        is_multisession_supported: opts.multi ?? false,
      },
    }),
  );
  return { id: body.user.id, username, password, name };
}

/** Creates an instance for the user and links it through the simulator; returns its sessionId. */
export async function createLinkedAccount(
  request: APIRequestContext,
  user: TestUser,
  opts: { phoneNumber?: string; sessionName?: string } = {},
): Promise<string> {
  const { token } = await apiLogin(request, user.username, user.password);
  const headers = { authorization: `Bearer ${token}` };
  const created = await json<{ sessionId: string }>(
    await request.post('/api/create-instance', {
      headers,
      data: {
        phoneNumber: opts.phoneNumber ?? '919800000001',
        sessionName: opts.sessionName ?? 'Shop phone',
      },
    }),
  );
  await json(await request.post(`/api/simulator/sessions/${created.sessionId}/link`, { headers }));
  await expect
    .poll(
      async () =>
        (
          await json<{ connected: boolean }>(
            await request.get(`/api/${created.sessionId}/status`, { headers }),
          )
        ).connected,
      {
        timeout: 20_000,
      },
    )
    .toBe(true);
  return created.sessionId;
}

/**
 * A new user (`createUser`'s options) with an instance linked through the simulator and an API
 * token: where most specs start.
 */
export async function linkedUser(
  request: APIRequestContext,
  opts: Parameters<typeof createUser>[1] & { phoneNumber?: string; sessionName?: string } = {},
) {
  const user = await createUser(request, opts);
  const accountId = await createLinkedAccount(request, user, opts);
  const { token } = await apiLogin(request, user.username, user.password);
  return { user, sessionId: accountId, token };
}

/**
 * Signs in through the login page, like a person. Waits until the app has left /login.
 */
export async function loginViaUi(page: Page, username: string, password: string) {
  await page.goto('/#/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL((url) => !url.hash.startsWith('#/login'), { timeout: 20_000 });
}

/**
 * `confirmSends` (default false): whether Send Now asks 'Confirm send' first, as it does for a
 * new user. The specs that are not about it turn it off the way a user does (the preference
 * kept in the browser, see web/src/components/charge/confirm-pref.ts).
 */
export const test = base.extend<{ confirmSends: boolean }>({
  confirmSends: [false, { option: true }],
  page: async ({ page, confirmSends }, use) => {
    if (!confirmSends)
      await page.addInitScript(() => window.localStorage.setItem('wa.confirmSendsFrom', '100000000'));
    await use(page);
  },
});
export { expect };

/**
 * Signs in without the login page: stores what the login call returns in sessionStorage
 * (the keys the product keeps to the letter) before the app loads, once per tab. Then `page.goto('/#/route')`.
 */
export async function signInByStorage(
  page: Page,
  request: APIRequestContext,
  username: string,
  password: string,
) {
  const { token, user } = await apiLogin(request, username, password);
  await page.addInitScript(
    ({ token, user }) => {
      if (window.name === 'e2e-seeded') return;
      window.name = 'e2e-seeded';
      const u = user as {
        id: string;
        name: string;
        role: string;
        setting: { is_bulk_messaging_enabled: number; is_multisession_supported: number };
        credits: { user_credits: number; admin_users: unknown[] };
      };
      const s = window.sessionStorage;
      s.setItem('token', token);
      s.setItem('userRole', u.role);
      s.setItem('userId', u.id);
      s.setItem('loggedInUserName', u.name);
      s.setItem('userCreditsAvailable', String(u.credits.user_credits));
      s.setItem('isBulkMessagingEnabled', String(u.setting.is_bulk_messaging_enabled));
      s.setItem('isMultiSessionEnabled', String(u.setting.is_multisession_supported));
      s.setItem('AdminUsers', JSON.stringify(u.credits.admin_users));
    },
    { token, user },
  );
  return { token, user };
}

/** Signs the ADMIN in on `page` (signInByStorage). */
export const signInAsAdmin = (page: Page, request: APIRequestContext) =>
  signInByStorage(page, request, ADMIN.username, ADMIN.password);

/**
 * Saves a picture for the README or a note, only when SCREENSHOTS_DIR is set (e.g.
 * `SCREENSHOTS_DIR=$PWD/../docs/screenshots npx playwright test tests/tables-fit.spec.ts`):
 * a test run does not rewrite the committed pictures.
 */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  const dir = process.env.SCREENSHOTS_DIR;
  if (dir) await page.screenshot({ path: path.join(dir, name), ...options });
}

/**
 * One user with a linked simulator account shared by the tests of the describe that calls this
 * (made in its beforeAll): `linked.user`, `linked.sessionId`, and `linked.signIn(page, request)`.
 */
export function linkedUserForFile(opts: { credits: number; phoneNumber: string }) {
  const made: { user?: TestUser; sessionId?: string } = {};
  test.beforeAll(async ({ request }) => {
    made.user = await createUser(request, { credits: opts.credits });
    made.sessionId = await createLinkedAccount(request, made.user, { phoneNumber: opts.phoneNumber });
  });
  return {
    get user(): TestUser {
      return made.user!;
    },
    get sessionId(): string {
      return made.sessionId!;
    },
    signIn: (page: Page, request: APIRequestContext) =>
      signInByStorage(page, request, made.user!.username, made.user!.password),
  };
}
