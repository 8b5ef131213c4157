import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { createUser, expect, saveScreenshot, signInAsAdmin, signInByStorage, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import { sendApi } from './support/customer.ts';
import { confirmRetryWithCopy } from './support/jobs.ts';
import { interceptPrint, printed } from './support/print.ts';

/** 5, 10 (MIS dates) and 12: tables that fit, scheduled jobs, print views. */

const TZ = 'Asia/Kolkata';
test.use({ timezoneId: TZ, locale: 'en-IN' });

const PHONE = { width: 360, height: 740 };
const LONG_TEXT = 'Diwali offer: flat 20% off on all sweets at our Karol Bagh store until Sunday evening';
const LATER_TEXT = 'Reminder: parent-teacher meeting on Saturday at 10 am in the main hall';

async function waitFinished(request: APIRequestContext, headers: Record<string, string>, ids: string[]) {
  for (const id of ids)
    await expect
      .poll(
        async () =>
          (
            (await (await request.get(`/api/message-jobs-details/${id}`, { headers })).json()) as {
              job: { status: string };
            }
          ).job.status,
        { timeout: 20_000 },
      )
      .toMatch(/completed|failed/);
}

/** A user with a completed, a partly sent (one number times out) and a scheduled job. */
async function userWithJobs(page: Page, request: APIRequestContext) {
  const u = await userWithAccount(page, request, { credits: 20 });
  const done = await sendApi(request, u.headers, u.sessionId, {
    chatIds: ['919800000031', '919800000032'],
    content: LONG_TEXT,
  });
  const failed = await sendApi(request, u.headers, u.sessionId, {
    chatIds: ['919800000033', '917040330001'],
    content: 'Hello again',
  });
  await waitFinished(request, u.headers, [done, failed]);
  const at = new Date(Date.now() + 3 * 3_600_000);
  at.setSeconds(0, 0);
  const scheduled = await sendApi(request, u.headers, u.sessionId, {
    chatIds: ['919800000034'],
    content: LATER_TEXT,
    scheduleTime: at.toISOString(),
  });
  return { ...u, done, failed, scheduled, at };
}

/**
 * Nothing around the table scrolls sideways and every column header lies inside the view: the
 * table's own scroll box and each ancestor have scrollWidth <= clientWidth.
 */
async function expectFits(table: Locator) {
  const report = await table.evaluate((el) => {
    const wide: string[] = [];
    for (let n: Element | null = el; n; n = n.parentElement) {
      if (n.scrollWidth > n.clientWidth + 1 && getComputedStyle(n).overflowX !== 'visible')
        wide.push(`${n.tagName}.${n.className} ${n.scrollWidth} > ${n.clientWidth}`);
    }
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) wide.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
    const outside = [...el.querySelectorAll('th')]
      .filter((th) => th.getBoundingClientRect().right > window.innerWidth)
      .map((th) => th.textContent);
    if (wide.length)
      wide.push(
        `columns: ${[...el.querySelectorAll('th')].map((th) => `${th.textContent} ${Math.round(th.getBoundingClientRect().width)}`).join(', ')}`,
      );
    return { wide, outside };
  });
  expect(report.wide, 'boxes that scroll sideways').toEqual([]);
  expect(report.outside, 'column headers beyond the view').toEqual([]);
}

test('at 1280 px Message Jobs, the MIS Report, the Group List and Instances need no sideways scrolling', async ({
  page,
  request,
}) => {
  const u = await userWithJobs(page, request);

  await page.goto('/#/jobs');
  const jobs = page.getByRole('table', { name: 'Message jobs' });
  await expect(jobs.getByRole('row')).toHaveCount(4);
  await expectFits(jobs);
  // The short id, the full one on hover.
  const short = u.done.slice(0, 8);
  const id = jobs.getByRole('row').filter({ hasText: short }).getByTitle(u.done);
  await expect(id).toHaveText(short);
  await saveScreenshot(page, 'jobs-1280.png');

  await page.goto('/#/reports');
  const report = page.getByRole('table', { name: 'MIS Report jobs' });
  await expect(report.getByRole('row')).toHaveCount(4);
  for (const h of ['Total Messages', 'Success', 'Failed', 'Created Date'])
    await expect(report.getByRole('columnheader', { name: h, exact: true })).toBeInViewport();
  await expectFits(report);
  await saveScreenshot(page, 'mis-report-1280.png');

  await page.goto('/#/groups');
  const groups = page.getByRole('table', { name: 'Group chats' });
  await expect(groups.getByRole('row').nth(3)).toBeVisible();
  for (const h of ['Admin Count', 'Status', 'Created Date & Time', 'Updated Date & Time'])
    await expect(groups.getByRole('columnheader', { name: h, exact: true })).toBeInViewport();
  await expectFits(groups);

  await page.goto('/#/instances');
  const instances = page.getByRole('table', { name: 'Instances' });
  await expect(instances.getByRole('row')).toHaveCount(2);
  await expectFits(instances);
});

test('at 1280 px the other tables need no sideways scrolling either: Contacts, API keys, Webhooks, Manage Users, Audit log', async ({
  page,
  request,
}) => {
  const u = await userWithAccount(page, request, { credits: 5 });
  const csv = `Name,Mobile,City,Labels\n${Array.from(
    { length: 5 },
    (_, i) =>
      `Customer with a rather long name ${i},98000${String(i).padStart(5, '0')},Bengaluru Urban district,* myContacts ::: Wholesale ::: Diwali ${i}`,
  ).join('\n')}\n`;
  const imported = await request.post('/api/contact-lists/import', {
    headers: u.headers,
    multipart: {
      name: 'Diwali customers of the Karol Bagh store',
      file: { name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) },
    },
  });
  expect(imported.ok(), await imported.text()).toBe(true);
  expect(
    (
      await request.post('/api/api-keys', {
        headers: u.headers,
        data: { name: 'Shop backend', password: u.user.password },
      })
    ).ok(),
  ).toBe(true);
  const hook = await request.post('/api/webhooks', {
    headers: u.headers,
    data: { url: 'https://93.184.216.34/wa-events', events: ['optout'] },
  });
  expect(hook.ok(), await hook.text()).toBe(true);

  await page.goto('/#/contacts');
  const lists = page.getByRole('table', { name: 'Contact lists' });
  await expect(lists).toContainText('Diwali customers');
  await expectFits(lists);
  await lists.getByRole('button', { name: /^View contacts of/ }).click();
  const contacts = page.getByRole('table', { name: /^Contacts of/ });
  await expect(contacts.getByRole('row')).toHaveCount(6);
  await expectFits(contacts);
  await expectFits(page.getByRole('table', { name: 'Opt-out list' }));

  await page.goto('/#/api-keys');
  const keys = page.getByRole('table', { name: 'API keys' });
  await expect(keys).toContainText('Shop backend');
  await expectFits(keys);

  await page.goto('/#/webhooks');
  const calls = page.getByRole('table', { name: 'Calls to https://93.184.216.34/wa-events' });
  await expect(calls).toBeVisible();
  await expectFits(calls);

  // The admin in a page of their own (a page is signed in once, when it first loads).
  const admin = await page.context().newPage();
  await signInAsAdmin(admin, request);
  await admin.goto('/#/users');
  const users = admin.getByRole('table').first();
  await expect(users.getByRole('row').nth(1)).toBeVisible();
  await expectFits(users);
  await admin.goto('/#/adminDashboard');
  await admin.getByRole('tab', { name: 'Audit log' }).click();
  const audit = admin.getByRole('table').first();
  await expect(audit.getByRole('row').nth(1)).toBeVisible();
  await expectFits(audit);
});

test('below 768 px each job, report row, group and instance is a card with every field and action', async ({
  page,
  request,
}) => {
  await page.setViewportSize(PHONE);
  const u = await userWithJobs(page, request);

  await page.goto('/#/jobs');
  const jobs = page.getByRole('list', { name: 'Message jobs' });
  const failed = jobs.getByRole('listitem').filter({ hasText: u.failed.slice(0, 8) });
  await expect(failed).toBeVisible();
  await saveScreenshot(page, 'jobs-360.png');
  for (const field of ['Status', 'Type', 'Progress', 'Results', 'Phone Number', 'Created'])
    await expect(failed.getByText(field, { exact: true })).toBeVisible();
  await expect(failed.getByText('Partly sent', { exact: true })).toBeVisible();
  // One of two sent: the Progress field agrees with 'Partly sent, 1 of 2 sent'.
  await expect(failed.getByText('1 of 2 sent', { exact: true })).toBeVisible();
  await expect(failed.getByText('1 / 2 (50%)')).toBeVisible();
  for (const action of ['View', 'Retry Failed', 'Delete']) {
    const button = failed.getByRole('button', { name: action, exact: true });
    await button.scrollIntoViewIfNeeded();
    await expect(button).toBeInViewport({ ratio: 1 });
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await failed.getByRole('button', { name: 'Retry Failed' }).click();
  await confirmRetryWithCopy(page, 1);
  await expect(page.getByRole('status', { name: 'Status' })).toContainText('Retrying 1 failed message');

  await page.goto('/#/reports');
  const report = page.getByRole('list', { name: 'MIS Report jobs' });
  const row = report.getByRole('listitem').filter({ hasText: u.done.slice(0, 8) });
  await row.scrollIntoViewIfNeeded();
  for (const field of ['Total Messages', 'Success', 'Failed', 'Created Date', 'Content', 'Phone Number'])
    await expect(row.getByText(field, { exact: true })).toBeVisible();
  const card = await row.boundingBox();
  expect(card!.x + card!.width).toBeLessThanOrEqual(PHONE.width);
  await expect(row.getByRole('button', { name: 'Show more' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await saveScreenshot(page, 'mis-report-360.png');

  await page.goto('/#/groups');
  const group = page.getByRole('list', { name: 'Group chats' }).getByRole('listitem').first();
  for (const field of ['Admin Numbers', 'Members Count', 'Admin Count', 'Status', 'Updated Date & Time'])
    await expect(group.getByText(field, { exact: true })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

  await page.goto('/#/instances');
  const instance = page.getByRole('list', { name: 'Instances' }).getByRole('listitem');
  await expect(instance.getByText('CONNECTED')).toBeInViewport();
  await expect(instance.getByRole('button', { name: 'Terminate Shop phone' })).toBeInViewport();
});

test("at 360 px ravi's empty Instances page shows its whole text", async ({ page, request }) => {
  await page.setViewportSize(PHONE);
  const ravi = await createUser(request, { name: 'Ravi' });
  await signInByStorage(page, request, ravi.username, ravi.password);
  await page.goto('/#/instances');
  const empty = page.getByText('No instances yet. Add one with ADD NEW and scan its QR code with WhatsApp.');
  await expect(empty).toBeVisible();
  const box = await empty.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, clipped: el.scrollWidth > el.clientWidth };
  });
  expect(box.left).toBeGreaterThanOrEqual(0);
  expect(box.right).toBeLessThanOrEqual(PHONE.width);
  expect(box.clipped).toBe(false);
});

test('scheduled jobs show when they will be sent and their message: Scheduled tab, Confirm Delete, dashboard', async ({
  page,
  request,
}) => {
  const u = await userWithJobs(page, request);
  const when = await page.evaluate((iso) => new Date(iso).toLocaleString('en-IN'), u.at.toISOString());

  await page.goto('/#/jobs');
  await page.getByRole('tab', { name: /^Scheduled/ }).click();
  const row = page
    .getByRole('table', { name: 'Message jobs' })
    .getByRole('row')
    .filter({ hasText: u.scheduled.slice(0, 8) });
  await expect(row).toContainText(`Scheduled for ${when}`);
  await expect(row).toContainText(LATER_TEXT.slice(0, 20));
  await row.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Confirm Delete' });
  await expect(dialog).toContainText('Are you sure you want to delete this job?');
  await expect(dialog).toContainText(u.scheduled);
  await expect(dialog).toContainText(`Scheduled for${when}`);
  await expect(dialog).toContainText(LATER_TEXT);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.goto('/#/dashboard');
  const recent = page
    .getByRole('list', { name: 'Recent Messages' })
    .getByRole('listitem')
    .filter({ hasText: LATER_TEXT });
  await expect(recent).toContainText(`Scheduled for ${when}`);
});

test("a jobs tab shows its own rows only: the previous tab's rows go while it loads", async ({
  page,
  request,
}) => {
  const u = await userWithJobs(page, request);
  await page.goto('/#/jobs');
  const table = page.getByRole('table', { name: 'Message jobs' });
  await expect(table.getByRole('row').filter({ hasText: u.done.slice(0, 8) })).toHaveCount(1);
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route(/\/api\/message-jobs\/[^/?]+\?.*status=failed/, async (route) => {
    await held;
    await route.continue();
  });
  await page.getByRole('tab', { name: /^Failed/ }).click();
  await expect(page.getByText('Loading jobs...')).toBeVisible();
  await expect(table).toHaveCount(0);
  release();
  await expect(table.getByRole('row').filter({ hasText: u.failed.slice(0, 8) })).toHaveCount(1);
  await expect(table.getByRole('row').filter({ hasText: u.done.slice(0, 8) })).toHaveCount(0);
});

test('MIS dates are written dd/mm/yyyy and the print view is headed with the range', async ({
  page,
  request,
}) => {
  await interceptPrint(page);
  await userWithJobs(page, request);
  await page.goto('/#/reports');
  const report = page.getByRole('table', { name: 'MIS Report jobs' });
  await expect(report.getByRole('row')).toHaveCount(4);
  const today = new Intl.DateTimeFormat('en-IN', {
    timeZone: TZ,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
  }).format(new Date());
  expect(today).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
  const from = page.getByRole('textbox', { name: 'From' });
  await expect(from).toHaveAttribute('placeholder', 'dd/mm/yyyy');
  await from.fill(today);
  await page.getByRole('textbox', { name: 'To' }).fill(today);
  await page.getByRole('heading', { name: 'MIS Report' }).click();
  await expect(from).toHaveValue(today);
  await expect(report.getByRole('row')).toHaveCount(4);
  await page.getByRole('button', { name: 'PDF/Print' }).click();
  await expect.poll(async () => (await printed(page)).length).toBe(1);
  const html = (await printed(page))[0]!.html;
  expect(html).toContain(`From ${today} to ${today}`);
  expect(html).toMatch(/@page\s*{\s*size:\s*landscape/);
});

test('the Group List print is landscape and never splits a word inside a column', async ({
  page,
  request,
}) => {
  await interceptPrint(page);
  await userWithAccount(page, request, { credits: 1 });
  await page.goto('/#/groups');
  await expect(page.getByRole('table', { name: 'Group chats' }).getByRole('row').nth(3)).toBeVisible();
  await page.getByRole('button', { name: 'PDF/Print' }).click();
  await expect.poll(async () => (await printed(page)).length).toBe(1);
  const html = (await printed(page))[0]!.html;
  expect(html).toMatch(/@page\s*{\s*size:\s*landscape/);
  // The printable width of A4 landscape with 10 mm margins: 277 mm at 96 px per inch.
  const paper = await page.context().newPage();
  await paper.setViewportSize({ width: 1047, height: 740 });
  await paper.setContent(html.replace(/<script[\s\S]*?<\/script>/g, ''));
  const split = await paper.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll('th, td')) {
      if (cell.classList.contains('long')) continue;
      const text = cell.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) continue;
      const s = text.textContent ?? '';
      for (const m of s.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(text, m.index);
        range.setEnd(text, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
    return broken;
  });
  expect(split).toEqual([]);
  expect(await paper.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1047);
});
