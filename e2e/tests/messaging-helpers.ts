import type { APIRequestContext, Page } from '@playwright/test';
import { ADMIN, apiLogin, createLinkedSession, createUser, expect, type TestUser } from '../fixtures.ts';

/** The simulator's announce-only group, where sending fails. */
export const ANNOUNCE_ONLY = 'Announcements (admins only)';

/**
 * Signs in without the login page: what the login call returns goes to sessionStorage under the
 * keys of spec section 3 before the app loads (once per tab, so a reload keeps later changes).
 */
export async function signIn(page: Page, request: APIRequestContext, user: TestUser) {
  const { token, user: u } = await apiLogin(request, user.username, user.password);
  await page.addInitScript(
    ({ token, u }) => {
      if (window.name === 'e2e-signed-in') return;
      window.name = 'e2e-signed-in';
      const v = u as {
        id: string;
        name: string;
        role: string;
        setting: { is_bulk_messaging_enabled: number; is_multisession_supported: number };
        credits: { user_credits: number; admin_users: unknown[] };
      };
      const s = window.sessionStorage;
      s.setItem('token', token);
      s.setItem('userRole', v.role);
      s.setItem('userId', v.id);
      s.setItem('loggedInUserName', v.name);
      s.setItem('userCreditsAvailable', String(v.credits.user_credits));
      s.setItem('isBulkMessagingEnabled', String(v.setting.is_bulk_messaging_enabled));
      s.setItem('isMultiSessionEnabled', String(v.setting.is_multisession_supported));
      s.setItem('AdminUsers', JSON.stringify(v.credits.admin_users));
    },
    { token, u },
  );
  return token;
}

/** A user with a linked simulator session, signed in on `page`. */
export async function userWithSession(
  page: Page,
  request: APIRequestContext,
  opts: { credits: number; bulk?: boolean },
) {
  const user = await createUser(request, { credits: opts.credits, bulk: opts.bulk ?? true });
  const sessionId = await createLinkedSession(request, user);
  const token = await signIn(page, request, user);
  return { user, sessionId, token, headers: { authorization: `Bearer ${token}` } };
}

/** The group names of a session as the compose page lists them. */
export async function groupNames(
  request: APIRequestContext,
  headers: Record<string, string>,
  sessionId: string,
): Promise<string[]> {
  const res = await request.get(`/api/groupsList/${sessionId}`, { headers });
  expect(res.ok()).toBe(true);
  const body = (await res.json()) as { groups: { groupName: string }[] };
  return body.groups.map((g) => g.groupName);
}

/** The balance shown in the bubble. */
export const balanceBubble = (page: Page) => page.getByLabel('Account Balance');

export async function ledger(request: APIRequestContext, userId: string) {
  const { token } = await apiLogin(request, ADMIN.username, ADMIN.password);
  const res = await request.get(`/api/admin/users/${userId}/ledger`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { entries: { delta: number; reason: string; jobId: string | null }[] })
    .entries;
}

export async function addCredits(request: APIRequestContext, userId: string, amount: number) {
  const { token } = await apiLogin(request, ADMIN.username, ADMIN.password);
  const res = await request.post(`/api/admin/users/${userId}/credits`, {
    headers: { authorization: `Bearer ${token}` },
    data: { amount },
  });
  expect(res.ok()).toBe(true);
}

/** A 1×1 PNG. */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A `datetime-local` value `minutes` ahead of now, to the minute. */
export function localInputValue(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
