import type { APIRequestContext, Page } from '@playwright/test';
import { expect } from '../../fixtures.ts';

/** The zone the Group List specs run in (`test.use({ timezoneId: TZ })`). */
export const TZ = 'Asia/Kolkata';

/** A group as GET /api/groupChats/:sessionId returns it. */
export type GroupChat = {
  groupId: string;
  groupName: string;
  adminPhone: string[];
  groupLink: string | null;
  participantCount: number;
  adminCount: number;
  creationDate: string | null;
  updatedDate: string | null;
  owner: string | null;
  participants: { phoneNumber: string; isAdmin: boolean; isSuperAdmin: boolean }[];
  lastMessage: { sender: string; timestamp: number; body: string | null } | null;
};

/** Simulated groups whose names must stay harmless: markup shown as text, a formula quoted in the CSV. */
export const MARKUP_NAME = `<b>Bold</b> & "Quoted" Friends' Club`;
export const FORMULA_NAME = '=HYPERLINK("http://example.com","Click")';
/** DD-MM-YYYY hh:mm AM/PM in the browser's zone, computed independently of the app. */
export function groupDate(iso: string | null): string {
  if (!iso) return 'N/A';
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: TZ,
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hour12: true,
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.day}-${parts.month}-${parts.year} ${parts.hour}:${parts.minute} ${parts.dayPeriod!.toUpperCase()}`;
}

/** The groups of an account as the API lists them (what the page must show). */
export async function groupsOf(
  request: APIRequestContext,
  token: string,
  accountId: string,
): Promise<GroupChat[]> {
  const res = await request.get(`/api/groupChats/${accountId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { groups: GroupChat[] }).groups;
}

/** Signs `shared`'s user in on `page` and reads the groups of its account. */
export async function signInForGroups(
  shared: {
    sessionId: string;
    signIn: (page: Page, request: APIRequestContext) => Promise<{ token: string }>;
  },
  page: Page,
  request: APIRequestContext,
): Promise<{ token: string; groups: GroupChat[] }> {
  const { token } = await shared.signIn(page, request);
  return { token, groups: await groupsOf(request, token, shared.sessionId) };
}

/** The Group List's table. */
export const table = (page: Page) => page.getByRole('table', { name: 'Group chats' });
