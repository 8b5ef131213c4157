import path from 'node:path';
import type { Page } from '@playwright/test';
import { ADMIN, createUser, expect, signInAsAdmin, signInByStorage, test } from '../fixtures.ts';
import {
  ANNOUNCE_ONLY,
  groupNames,
  localInputValue,
  onGroupMessaging,
  userWithAccount,
} from './messaging-helpers.ts';
import { axeAnalyze } from './support/axe.ts';
import { confirmRetryWithCopy } from './support/jobs.ts';

// What an action says is shown where the user is looking.

const PHONE = { width: 360, height: 740 };
const banner = (page: Page) => page.getByRole('status', { name: 'Status' });
const groupsTable = (page: Page) => page.getByRole('table', { name: 'Select Groups' });
/** For a note or a review: SCREENSHOTS_DIR=<dir> (docs/screenshots) saves Group Messaging after a send. */
async function screenshot(page: Page, name: string) {
  if (!process.env.SCREENSHOTS_DIR) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(process.env.SCREENSHOTS_DIR, name) });
}

async function pickGroups(page: Page, names: string[]) {
  for (const n of names)
    await groupsTable(page)
      .getByRole('checkbox', { name: `Select ${n}`, exact: true })
      .check();
}

test.describe('at 360 × 740', () => {
  test.use({ viewport: PHONE });

  test('a problem with the poll shows beside its control, which takes the focus', async ({
    page,
    request,
  }) => {
    const [first] = (await onGroupMessaging(page, request, { credits: 20 })).groups;
    await pickGroups(page, [first!]);
    await page.getByRole('tab', { name: 'Poll' }).click();
    for (let i = 0; i < 6; i++) await page.getByRole('button', { name: 'Add Option' }).click();

    const send = page.getByRole('button', { name: 'Send Now' });
    await send.scrollIntoViewIfNeeded();
    await send.click();
    // It was shown 205–349 px above the view, at the top of the page.
    await expect(page.getByText('Please enter a poll question', { exact: true })).toBeInViewport();
    await expect(page.getByLabel('Poll question')).toBeFocused();

    await page.getByLabel('Poll question').fill('Lunch at one?');
    await expect(page.getByText('Please enter a poll question', { exact: true })).toHaveCount(0);
    await page.getByRole('textbox', { name: 'Option 1', exact: true }).fill('Yes');
    await send.scrollIntoViewIfNeeded();
    await send.click();
    await expect(page.getByText('Please add at least two poll options', { exact: true })).toBeInViewport();
    await expect(page.getByRole('textbox', { name: 'Option 1', exact: true })).toBeFocused();
  });

  test('a refused file is named beside the file button', async ({ page, request }) => {
    await userWithAccount(page, request, { credits: 5 });
    await page.goto('/#/compose');
    await page.getByRole('tab', { name: 'Media Message' }).click();
    const select = page.getByRole('button', { name: 'Select File' });
    await select.scrollIntoViewIfNeeded();
    const chooser = page.waitForEvent('filechooser');
    await select.click();
    await (await chooser).setFiles({
      name: 'video.mp4',
      mimeType: 'video/mp4',
      buffer: Buffer.alloc(16 * 1024 * 1024 + 1),
    });
    const refused = page.getByText('File is too large (max 16 MB)', { exact: true });
    await expect(refused).toBeInViewport();
    await expect(page.getByText('No file selected')).toBeInViewport();
    const [button, text] = [await select.boundingBox(), await refused.boundingBox()];
    expect(Math.abs(text!.y - button!.y)).toBeLessThan(120);
  });

  test('Send Now brings the progress into view, then the result, which takes the focus', async ({
    page,
    request,
  }) => {
    const names = (await onGroupMessaging(page, request, { credits: 20 })).groups;
    await pickGroups(page, names.slice(0, 3));
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Shop opens at 10 tomorrow');
    await page.getByRole('button', { name: 'Send Now' }).click();

    const progress = page.getByRole('region', { name: 'Sending Progress' });
    await expect(progress).toBeInViewport();
    await expect(progress).toBeFocused();
    const result = banner(page);
    await expect(result).toContainText('Message sending complete! Successfully sent to 3 groups.');
    await expect(result).toBeInViewport();
    await expect(result).toBeFocused();
    await expect(page.getByText('0 of 12 selected')).toBeVisible();
    await screenshot(page, 'compose-after-send-360.png');
  });

  test('a partial success keeps the spec’s words and says the counts; the retry message ends', async ({
    page,
    request,
  }) => {
    test.setTimeout(90_000);
    const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 10 });
    const ok = (await groupNames(request, headers, accountId)).find((n) => n !== ANNOUNCE_ONLY)!;
    await page.goto('/#/compose');
    await pickGroups(page, [ok, ANNOUNCE_ONLY]);
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello all');
    await page.getByRole('button', { name: 'Send Now' }).click();
    const result = banner(page);
    await expect(result).toContainText(
      'Message sending failed. Successfully sent to 1 groups. Failed for 1 groups. You can retry failed messages from the Jobs page.',
    );
    await expect(result.getByText('1 sent, 1 failed — Retry Failed in Message Jobs')).toBeInViewport();
    await expect(result).toBeFocused();

    await result.getByRole('button', { name: 'View All Jobs' }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('tab', { name: 'Failed' }).click();
    // The announce-only group would refuse again: no Retry Failed for it.
    const table = page.getByRole('table', { name: 'Message jobs' });
    await expect(table.getByText('Partly sent', { exact: true })).toBeVisible();
    await expect(table.getByRole('button', { name: 'Retry Failed' })).toHaveCount(0);
    // A send that timed out (the simulator's numbers starting 917040) may succeed on a retry.
    const timedOut = await request.post(`/api/session/${accountId}/sendIndividualMessage`, {
      headers,
      data: { chatIds: ['919800000091', '917040910001'], content: 'Timed out once' },
    });
    expect(timedOut.ok(), await timedOut.text()).toBe(true);
    await expect(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect(table.getByRole('button', { name: 'Retry Failed' })).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await table.getByRole('button', { name: 'Retry Failed' }).click();
    await confirmRetryWithCopy(page, 1);
    const retrying = page.getByRole('status').filter({ hasText: 'Retrying 1 failed message' });
    await expect(retrying).toBeVisible();
    // The number times out again: the retry ends and says how the job stands.
    await expect(retrying).toHaveCount(0, { timeout: 20_000 });
    await expect(page.getByRole('status', { name: 'Status' })).toHaveText('Retry finished: 1 sent, 1 failed');
  });

  test('a schedule is confirmed in view and the selection is cleared', async ({ page, request }) => {
    const names = (await onGroupMessaging(page, request, { credits: 20 })).groups;
    await pickGroups(page, names.slice(0, 2));
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Sale starts Monday');
    await page.getByRole('button', { name: 'Schedule Message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Schedule Message' });
    await dialog.getByLabel('Schedule time').fill(localInputValue(new Date(Date.now() + 2 * 3_600_000)));
    await dialog.getByRole('button', { name: 'Schedule Message' }).click();
    await expect(dialog).toHaveCount(0);

    const result = banner(page);
    await expect(result).toContainText('Message scheduled successfully! Scheduled for');
    await expect(result).toBeInViewport();
    await expect(result).toBeFocused();
    // So the same message is not scheduled twice by accident.
    await expect(page.getByText('0 of 12 selected')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Schedule Message' })).toBeDisabled();
  });
});

test('the schedule time is typed and picked the en-IN way, day first', async ({ page, request }) => {
  const [first] = (await onGroupMessaging(page, request, { credits: 20 })).groups;
  await pickGroups(page, [first!]);
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Sale starts Monday');
  await page.getByRole('button', { name: 'Schedule Message' }).click();
  const dialog = page.getByRole('dialog', { name: 'Schedule Message' });
  const input = dialog.getByLabel('Schedule time');
  await expect(input).toHaveAttribute('placeholder', 'DD/MM/YYYY, hh:mm am');

  const p2 = (n: number) => String(n).padStart(2, '0');
  const dayFirst = (d: Date) => `${p2(d.getDate())}/${p2(d.getMonth() + 1)}/${d.getFullYear()}`;
  const now = new Date();
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, 14, 30);
  await input.fill(`${dayFirst(tomorrow)}, 2:30 pm`);
  const time = dialog.locator('dt', { hasText: /^Time$/ }).locator('xpath=following-sibling::dd[1]');
  await expect(time).toContainText(tomorrow.toLocaleString('en-IN'));

  // A day picked in the calendar keeps the time.
  const later = new Date(tomorrow.getFullYear(), tomorrow.getMonth(), tomorrow.getDate() + 1, 14, 30);
  await dialog.getByRole('button', { name: 'Pick the day in a calendar' }).click();
  // The calendar shows the chosen day's month; the next day may be in the following one.
  if (later.getMonth() !== tomorrow.getMonth())
    await page.getByRole('button', { name: 'Next month' }).click();
  const month = later.toLocaleString('en-GB', { month: 'long' });
  await page
    .getByRole('button', { name: `${later.getDate()} ${month} ${later.getFullYear()}`, exact: true })
    .first()
    .click();
  await expect(input).toHaveValue(`${dayFirst(later)}, 02:30 pm`);
  await expect(time).toContainText(later.toLocaleString('en-IN'));
  await dialog.getByRole('button', { name: 'Schedule Message' }).click();
  await expect(banner(page)).toContainText(
    `Message scheduled successfully! Scheduled for ${later.toLocaleString('en-IN')}`,
  );
});

test('the Schedule Message modal with its calendar open has no serious axe violation', async ({
  page,
  request,
}) => {
  const [first] = (await onGroupMessaging(page, request, { credits: 5 })).groups;
  await pickGroups(page, [first!]);
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello');
  await page.getByRole('button', { name: 'Schedule Message' }).click();
  const dialog = page.getByRole('dialog', { name: 'Schedule Message' });
  await dialog.getByRole('combobox', { name: 'Repeat', exact: true }).click();
  await page.getByRole('option', { name: 'Every week' }).click();
  await dialog.getByRole('button', { name: 'Pick the day in a calendar' }).click();
  await expect(page.locator('[data-dates-dropdown]')).toBeVisible();
  // The calendar fades in: axe measures the colours once it is drawn at full opacity.
  await expect
    .poll(() =>
      page.locator('[data-dates-dropdown]').evaluate((el) => {
        let opacity = 1;
        for (let e: Element | null = el; e; e = e.parentElement)
          opacity *= Number(getComputedStyle(e).opacity);
        return opacity;
      }),
    )
    .toBe(1);
  const result = await axeAnalyze(page);
  const serious = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.html.slice(0, 120)).join('; ')}`);
  expect(serious).toEqual([]);
});

test('Group Messaging after a send, at 1280 × 800: the result in view', async ({ page, request }) => {
  const names = (await onGroupMessaging(page, request, { credits: 20 })).groups;
  await pickGroups(page, names.slice(0, 4));
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Shop opens at 10 tomorrow');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(page.getByRole('region', { name: 'Sending Progress' })).toBeInViewport();
  const result = banner(page);
  await expect(result).toContainText('Message sending complete! Successfully sent to 4 groups.');
  await expect(result).toBeInViewport();
  await expect(result).toBeFocused();
  await screenshot(page, 'compose-after-send-1280.png');
});

test('without bulk messaging, #/bulkmessage shows the notice and no form', async ({ page, request }) => {
  const user = await createUser(request, { credits: 5, bulk: false });
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/bulkmessage');
  await expect(page.getByRole('heading', { name: 'Send Bulk Message' })).toBeVisible();
  await expect(page.getByText('Bulk messaging is not enabled for your account')).toBeInViewport();
  await expect(page.getByText('Click below to upload the List of Phone Numbers')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send Now' })).toHaveCount(0);
});

test('an ADMIN opening a user page goes to the admin home', async ({ page, request }) => {
  await signInAsAdmin(page, request);
  for (const route of ['/compose', '/bulkmessage', '/jobs', '/dashboard']) {
    await page.goto(`/#${route}`);
    await expect(page).toHaveURL(/#\/adminDashboard$/);
    await expect(page.getByRole('heading', { name: 'Admin User' })).toBeVisible();
  }
  await expect(page.getByRole('button', { name: 'Send Now' })).toHaveCount(0);
});
