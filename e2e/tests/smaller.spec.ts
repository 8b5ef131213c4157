import type { Page } from '@playwright/test';
import { createUser, expect, signInAsAdmin, signInByStorage, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';

// The smaller ones, each at the size it was seen (1280 × 800 unless said).

async function upload(page: Page, name: string, content: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload CSV or Excel' }).click();
  await (await chooser).setFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(content) });
}

test('Groups at 1280 px: Status says Active in full, names wrap on at most three lines', async ({
  page,
  request,
}) => {
  await userWithAccount(page, request, { credits: 1 });
  await page.goto('/#/groups');
  const table = page.getByRole('table', { name: 'Group chats' });
  await expect(table.getByText('Active').first()).toBeVisible();
  const badges = await table
    .locator('.mantine-Badge-label')
    .evaluateAll((els) => els.map((el) => ({ text: el.textContent, cut: el.scrollWidth > el.clientWidth })));
  expect(badges.length).toBeGreaterThan(0);
  expect(badges.filter((b) => b.cut)).toEqual([]);
  const names = await table
    .locator('tbody tr td:nth-child(2) button')
    .evaluateAll((els) =>
      els.map((el) => el.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(el).lineHeight)),
    );
  expect(names.length).toBeGreaterThan(0);
  expect(Math.max(...names)).toBeLessThanOrEqual(3.2);
});

test('a bulk upload with bracketed calling codes reads them; a new upload takes the last result away', async ({
  page,
  request,
}) => {
  await userWithAccount(page, request, { credits: 10 });
  await page.goto('/#/bulkmessage');
  await upload(page, 'first.csv', '919800015851\n');
  await page
    .getByRole('table', { name: 'Select Phone Numbers' })
    .getByRole('checkbox', { name: 'Select All' })
    .check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('First send');
  await page.getByRole('button', { name: 'Send Now' }).click();
  const status = page.getByRole('status', { name: 'Status' });
  await expect(status).toContainText('Every message was sent: 1 sent, 0 failed');

  await upload(page, 'second.csv', '(+91) 98000 15852\n(0091) 98000 15853\n[+91] 9800015854\n');
  await expect(page.getByRole('status', { name: 'Upload result' })).toHaveText(
    'second.csv: 3 phone numbers loaded.',
  );
  const table = page.getByRole('table', { name: 'Select Phone Numbers' });
  for (const n of ['919800015852', '919800015853', '919800015854'])
    await expect(table.getByRole('cell', { name: n, exact: true })).toBeVisible();
  await expect(status).toHaveCount(0);
});

test('an opt-out paste adds the good lines and lists the bad ones', async ({ page, request }) => {
  const user = await createUser(request, { credits: 0 });
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/contacts');
  const section = page.getByRole('region', { name: 'Opt-outs' });
  await section.getByLabel('Numbers to opt out').fill('98000 15861\nnot a number\n+91 98000 15862\n12345');
  await section.getByRole('button', { name: 'Add to opt-outs' }).click();
  await expect(section.getByRole('alert')).toHaveText(
    'Not added, not phone numbers (2): not a number, 12345',
  );
  await expect(section.getByRole('cell', { name: '919800015861', exact: true })).toBeVisible();
  await expect(section.getByRole('cell', { name: '919800015862', exact: true })).toBeVisible();
  await expect(section.getByLabel('Numbers to opt out')).toHaveValue('not a number\n12345');
});

test("an API key's Last used shows its use without a reload", async ({ page, request }) => {
  const user = await createUser(request, { credits: 0 });
  await signInByStorage(page, request, user.username, user.password);
  // The page's own clock, moved on by hand below: the list's 10 s poll without waiting for it.
  await page.clock.install();
  await page.goto('/#/api-keys');
  await page.getByRole('textbox', { name: 'Key name' }).fill('Till');
  await page.getByLabel('Your password').fill(user.password);
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByLabel('New API key').textContent()) ?? '';
  const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /Till/ });
  await expect(row).toContainText('Never');
  const used = await request.get('/api/userDetails', { headers: { authorization: `Bearer ${key}` } });
  expect(used.status()).toBe(200);
  // Within 15 s of the page's time, as before: the 10 s poll, then 5 s.
  await page.clock.fastForward(10_000);
  await expect(row).not.toContainText('Never', { timeout: 5_000 });
});

test("the admin's chart fills its card and has an axis", async ({ page, request }) => {
  await signInAsAdmin(page, request);
  await page.goto('/#/adminDashboard');
  const chart = page.getByRole('img', { name: /^Messages per day/ });
  await expect(chart).toBeVisible();
  const [svg, box] = await chart.evaluate((el) => [
    el.getBoundingClientRect().width,
    (el.parentElement as HTMLElement).getBoundingClientRect().width,
  ]);
  expect(svg / box!).toBeGreaterThan(0.95);
  await expect(chart.locator('text').first()).toHaveText('0');
});
