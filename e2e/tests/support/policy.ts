import type { APIRequestContext, Page } from '@playwright/test';
import { expect } from '../../fixtures.ts';
import { userWithAccount } from '../messaging-helpers.ts';
import { jobStatus, numbers, sendApi, uploadCsv } from './customer.ts';

/** HH:MM in Kolkata, `minutes` from now. */
export const kolkata = (minutes: number) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Asia/Kolkata',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(Date.now() + minutes * 60_000));

/**
 * Sets the account's sending policy (PUT /api/session/:id/policy): no caps, no quiet hours, no
 * pause and no typing in Kolkata, changed by `over`.
 */
export async function putPolicy(
  request: APIRequestContext,
  headers: Record<string, string>,
  accountId: string,
  over: Record<string, unknown>,
) {
  const res = await request.put(`/api/session/${accountId}/policy`, {
    headers,
    data: {
      dailyLimit: null,
      warmUp: false,
      quietHours: null,
      timezone: 'Asia/Kolkata',
      delayMinMs: 0,
      delayMaxMs: 0,
      typing: false,
      ...over,
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
}

/** Quiet hours from 90 minutes ago to 90 minutes on: the account holds its sends. Returns their end (HH:MM). */
export async function quietNow(
  request: APIRequestContext,
  headers: Record<string, string>,
  accountId: string,
) {
  const end = kolkata(90);
  await putPolicy(request, headers, accountId, { quietHours: { start: kolkata(-90), end }, typing: true });
  return end;
}

/** A warming account (50 a day on its first day) that sent four one-to-one messages today: 46 left. */
export async function warmingWithFourSent(
  request: APIRequestContext,
  u: { headers: Record<string, string>; sessionId: string },
) {
  await putPolicy(request, u.headers, u.sessionId, { warmUp: true });
  const first = await sendApi(request, u.headers, u.sessionId, {
    chatIds: numbers(1, 4),
    content: 'Earlier',
  });
  await expect.poll(async () => (await jobStatus(request, u.headers, first)).status).toBe('completed');
}

/**
 * A big send about to go from a warming account: four sent earlier today (46 of the day's 50
 * left), then Bulk Messaging with 120 numbers uploaded, all ticked, and the Diwali offer typed.
 */
export async function bigSendOnWarmingAccount(page: Page, request: APIRequestContext) {
  const u = await userWithAccount(page, request, { credits: 200 });
  await warmingWithFourSent(request, u);
  await page.goto('/#/bulkmessage');
  await uploadCsv(page, `phone\n${numbers(101, 120).join('\n')}\n`);
  await page
    .getByRole('table', { name: 'Select Phone Numbers' })
    .getByRole('checkbox', { name: 'Select All' })
    .check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Diwali offer: 20% off');
  return u;
}
