import type { APIRequestContext, Page } from '@playwright/test';
import { ADMIN, apiLogin, createLinkedAccount, createUser, expect, signInByStorage } from '../fixtures.ts';

/** The simulator's announce-only group, where sending fails. */
export const ANNOUNCE_ONLY = 'Announcements (admins only)';

/** A user with a linked simulator session, signed in on `page`. */
export async function userWithAccount(
  page: Page,
  request: APIRequestContext,
  opts: { credits: number; bulk?: boolean },
) {
  const user = await createUser(request, { credits: opts.credits, bulk: opts.bulk ?? true });
  const accountId = await createLinkedAccount(request, user);
  const { token } = await signInByStorage(page, request, user.username, user.password);
  return { user, sessionId: accountId, token, headers: { authorization: `Bearer ${token}` } };
}

/** The group names of an account as the compose page lists them. */
export async function groupNames(
  request: APIRequestContext,
  headers: Record<string, string>,
  accountId: string,
): Promise<string[]> {
  const res = await request.get(`/api/groupsList/${accountId}`, { headers });
  expect(res.ok()).toBe(true);
  const body = (await res.json()) as { groups: { groupName: string }[] };
  return body.groups.map((g) => g.groupName);
}

/** The groups of an account that everyone may write to (all but the announce-only one), as the compose page lists them. */
export async function writableGroupNames(
  request: APIRequestContext,
  headers: Record<string, string>,
  accountId: string,
): Promise<string[]> {
  return (await groupNames(request, headers, accountId)).filter((n) => n !== ANNOUNCE_ONLY);
}

/** A user with a linked phone, signed in, on Group Messaging; `groups`: the groups everyone may write to. */
export async function onGroupMessaging(page: Page, request: APIRequestContext, opts: { credits: number }) {
  const signedIn = await userWithAccount(page, request, opts);
  const groups = await writableGroupNames(request, signedIn.headers, signedIn.sessionId);
  await page.goto('/#/compose');
  return { ...signedIn, groups };
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

/** A `datetime-local` value for a date, in local time, to the minute. */
export function localInputValue(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
