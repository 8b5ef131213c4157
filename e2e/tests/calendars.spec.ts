import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures.ts';
import { onGroupMessaging, userWithAccount } from './messaging-helpers.ts';
import { sendIndividual } from './support/jobs.ts';

// The schedule picker (time picked, month not stuck) and the MIS
// Report's range (quick ranges, a reversed range said), one calendar look (Monday first).

const p2 = (n: number) => String(n).padStart(2, '0');
const dayFirst = (d: Date) => `${p2(d.getDate())}/${p2(d.getMonth() + 1)}/${d.getFullYear()}`;
const monthTitle = (d: Date) => d.toLocaleString('en-GB', { month: 'long', year: 'numeric' });

async function openSchedule(page: Page, request: Parameters<typeof userWithAccount>[1]) {
  const [first] = (await onGroupMessaging(page, request, { credits: 5 })).groups;
  await page
    .getByRole('table', { name: 'Select Groups' })
    .getByRole('checkbox', { name: `Select ${first}`, exact: true })
    .check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Stock arrives Friday');
  await page.getByRole('button', { name: 'Schedule Message' }).click();
  return page.getByRole('dialog', { name: 'Schedule Message' });
}

test('after a past date is cleared the calendar opens on this month, days enabled; the time is picked', async ({
  page,
  request,
}) => {
  const dialog = await openSchedule(page, request);
  const input = dialog.getByLabel('Schedule time');
  await input.fill('01/01/2020, 10:00 am');
  await expect(
    dialog.locator('dt', { hasText: /^Time$/ }).locator('xpath=following-sibling::dd[1]'),
  ).toContainText('1/1/2020');
  await input.clear();
  await input.blur();
  await dialog.getByRole('button', { name: 'Pick the day in a calendar' }).click();
  const now = new Date();
  const dropdown = page.locator('[data-dates-dropdown]');
  await expect(dropdown.getByRole('button', { name: monthTitle(now), exact: true })).toBeVisible();
  // Weeks start on Monday (en-IN), in every calendar of the app.
  await expect(dropdown.locator('thead th').first()).toHaveText('Mo');
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  if (tomorrow.getMonth() !== now.getMonth())
    await dropdown.getByRole('button', { name: 'Next month' }).click();
  const day = dropdown.getByRole('button', {
    name: `${tomorrow.getDate()} ${tomorrow.toLocaleString('en-GB', { month: 'long' })} ${tomorrow.getFullYear()}`,
    exact: true,
  });
  await expect(day.first()).toBeEnabled();
  await day.first().click();
  await expect(input).toHaveValue(`${dayFirst(tomorrow)}, 09:00 am`);

  // The time from its own picker, not typed into the date.
  await dialog.getByLabel('Hours').fill('04');
  await dialog.getByLabel('Minutes').fill('35');
  await dialog.getByLabel('AM or PM').press('p');
  await expect(input).toHaveValue(`${dayFirst(tomorrow)}, 04:35 pm`);
  const at = new Date(tomorrow.getFullYear(), tomorrow.getMonth(), tomorrow.getDate(), 16, 35);
  await expect(
    dialog.locator('dt', { hasText: /^Time$/ }).locator('xpath=following-sibling::dd[1]'),
  ).toContainText(at.toLocaleString('en-IN'));
});

test('MIS Report: quick ranges fill From and To; a reversed range is said, not only “No jobs found”', async ({
  page,
  request,
}) => {
  const { token, sessionId: accountId } = await userWithAccount(page, request, { credits: 3 });
  await sendIndividual(request, token, accountId, { content: 'Range check' });
  await page.goto('/#/reports');
  await expect(page.getByText('1 job', { exact: true })).toBeVisible();
  const now = new Date();
  const from = page.getByRole('textbox', { name: 'From' });
  const to = page.getByRole('textbox', { name: 'To' });

  await page.getByRole('button', { name: 'Last 7 days' }).click();
  await expect(page.getByRole('button', { name: 'Last 7 days' })).toHaveAttribute('aria-pressed', 'true');
  const weekAgo = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 6);
  await expect(from).toHaveValue(dayFirst(weekAgo));
  await expect(to).toHaveValue(dayFirst(now));
  await expect(page.getByText('1 job', { exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'This month' }).click();
  await expect(from).toHaveValue(dayFirst(new Date(now.getFullYear(), now.getMonth(), 1)));
  await page.getByRole('button', { name: 'Today' }).click();
  await expect(from).toHaveValue(dayFirst(now));
  await page.getByRole('button', { name: 'Last 30 days' }).click();
  await expect(from).toHaveValue(dayFirst(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 29)));

  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  await from.fill(dayFirst(tomorrow));
  await from.blur();
  await to.fill(dayFirst(now));
  await to.blur();
  await expect(page.getByRole('alert')).toHaveText(
    `From (${dayFirst(tomorrow)}) is after To (${dayFirst(now)}): no day is in this range. Swap the dates or change one of them.`,
  );

  // The same calendar as the schedule picker: Monday first, named month arrows.
  await from.click();
  const dropdown = page.locator('[data-dates-dropdown]');
  await expect(dropdown.locator('thead th').first()).toHaveText('Mo');
  await expect(dropdown.getByRole('button', { name: 'Previous month' }).first()).toBeVisible();
});

test('Jobs: Pause, Cancel series and Delete each say what they do', async ({ page, request }) => {
  const { token, sessionId: accountId } = await userWithAccount(page, request, { credits: 5 });
  const res = await request.post(`/api/session/${accountId}/sendIndividualMessage`, {
    headers: { authorization: `Bearer ${token}` },
    data: {
      chatIds: ['919800015871'],
      content: 'Every week',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
      repeat: { every: 'week' },
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
  await page.goto('/#/jobs');
  await page.getByRole('tab', { name: /^Scheduled/ }).click();
  const table = page.getByRole('table', { name: 'Message jobs' });
  const explain = async (button: string, text: string) => {
    await table.getByRole('button', { name: button, exact: true }).first().hover();
    await expect(page.getByRole('tooltip')).toHaveText(text);
    await page.mouse.move(0, 0);
    await expect(page.getByRole('tooltip')).toHaveCount(0);
  };
  await explain(
    'Pause',
    'Stops after the message being sent; the rest wait, still paid for, until you press Resume.',
  );
  await explain(
    'Cancel series',
    'No more repeats start; the next one, not yet paid for, is removed. Repeats already sent stay.',
  );
  await explain(
    'Delete',
    'Removes this job. Messages not yet sent are not sent, and their credits come back to you.',
  );
});
