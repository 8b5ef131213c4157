import type { Page } from '@playwright/test';
import { apiLogin, createLinkedAccount, createUser, expect, signInByStorage, test } from '../fixtures.ts';
import { connectCloudAccount } from './support/cloud.ts';
import { importContactList } from './support/contacts.ts';
import { jobsOf } from './support/jobs.ts';

/** Dead ends and rough edges of a paying customer's first week: each fixed where the user meets it. */

const PHONE = { width: 360, height: 740 };
test.use({ timezoneId: 'Asia/Kolkata', locale: 'en-IN' });

/** Writes a screenshot for the reviewer of this change (not committed). */
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/rough-shots/${name}.png`, fullPage: true });

test('the same phone cannot be added twice: Add New Instance says where it is already linked', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { multi: true });
  await createLinkedAccount(request, user, { phoneNumber: '919800077701', sessionName: 'Shop phone' });
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/instances');
  await page.getByRole('button', { name: 'ADD NEW' }).click();
  const add = page.getByRole('dialog', { name: 'Add New Instance' });
  // Typed without the country code, as people do: the same phone all the same.
  await add.getByLabel('Phone Number').fill('98000 77701');
  await add.getByLabel('Session Name').fill('Shop phone again');
  await add.getByRole('button', { name: 'Create Instance' }).click();
  await expect(add.getByRole('alert')).toHaveText(
    '919800077701 is already linked in Instances as “Shop phone”. Use that instance, or terminate it first.',
  );
  await add.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('table', { name: 'Instances' }).getByRole('row')).toHaveCount(2);
});

test('pickers offer only the accounts that can do the page’s action; Instances shows every column and the health in words at 1280 px', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { multi: true, credits: 5 });
  await createLinkedAccount(request, user, { phoneNumber: '919800077711', sessionName: 'Shop phone' });
  const cloud = await connectCloudAccount(request, user);
  await signInByStorage(page, request, user.username, user.password);
  // The Cloud API account was the last one picked.
  await page.addInitScript((id) => window.sessionStorage.setItem('currentSessionId', id), cloud);

  await page.goto('/#/compose');
  const picker = page.getByRole('combobox', { name: 'Phone number' });
  await expect(picker).toHaveValue('Shop phone (919800077711)');
  await expect(
    page.getByText('1 account is not listed: Groups are available for linked phones only'),
  ).toBeVisible();
  await picker.click();
  await expect(page.getByRole('option')).toHaveText(['Shop phone (919800077711)']);
  await page.keyboard.press('Escape');
  // Its groups are there to pick: no 'Groups are available for linked phones only' refusal.
  await expect(page.getByRole('table', { name: 'Select Groups' }).getByRole('checkbox').nth(1)).toBeVisible();

  await page.goto('/#/groups');
  await page.getByRole('combobox', { name: 'Phone number' }).click();
  await expect(page.getByRole('option')).toHaveText(['Shop phone (919800077711)']);
  await page.keyboard.press('Escape');

  // Bulk Messaging sends to people: both kinds do.
  await page.goto('/#/bulkmessage');
  await page.getByRole('combobox', { name: 'Phone number' }).click();
  await expect(page.getByRole('option')).toHaveText([/^Shop phone /, /^Shop \(Cloud\) /]);
  await page.keyboard.press('Escape');

  await page.goto('/#/instances');
  const table = page.getByRole('table', { name: 'Instances' });
  await expect(table.getByRole('row')).toHaveCount(3);
  for (const h of ['Session Name', 'Phone Number', 'Status', 'Created', 'Actions'])
    await expect(table.getByRole('columnheader', { name: h, exact: true })).toBeInViewport();
  const cloudRow = table.getByRole('row').filter({ hasText: 'Shop (Cloud)' });
  await expect(cloudRow.getByRole('button', { name: 'Terminate Shop (Cloud)' })).toBeInViewport();
  await expect(cloudRow.getByRole('button', { name: 'Copy the webhook URL of Shop (Cloud)' })).toBeVisible();
  // The health's reason in words, not only on hover.
  const linkedRow = table.getByRole('row').filter({ hasText: 'Shop phone' });
  await expect(linkedRow.getByText(/^Since .*: nothing sent or received yet$/)).toBeVisible();
  await shot(page, 'instances-1280');
  await page.setViewportSize(PHONE);
  await shot(page, 'instances-360');
});

test('at 360 px every contact list shows its actions on screen', async ({ page, request }) => {
  const user = await createUser(request);
  const { token } = await apiLogin(request, user.username, user.password);
  await importContactList(request, token, 'Regulars', 'Name,Phone\nRavi,919800022222\n');
  await page.setViewportSize(PHONE);
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/contacts');
  const list = page.getByRole('list', { name: 'Contact lists' });
  for (const name of ['View contacts of Regulars', 'Export CSV: Regulars', 'Delete Regulars'])
    await expect(list.getByRole('button', { name })).toBeInViewport({ ratio: 1 });
  await list.getByRole('button', { name: 'View contacts of Regulars' }).click();
  await expect(page.getByText('919800022222').first()).toBeVisible();
  await shot(page, 'contacts-360');
});

test('the Status tab schedules with the day-first picker used everywhere else', async ({ page, request }) => {
  const user = await createUser(request, { credits: 5 });
  await createLinkedAccount(request, user, { phoneNumber: '919800077721' });
  const { token } = await signInByStorage(page, request, user.username, user.password);
  await importContactList(request, token, 'Regulars', 'phone\n9800000081\n');
  await page.goto('/#/bulkmessage');
  await page.getByRole('tab', { name: 'Status' }).click();
  const tab = page.getByRole('tabpanel', { name: 'Status' });
  await tab.getByRole('textbox', { name: 'Status text' }).fill('Fresh mangoes on Sunday');
  await tab.getByRole('combobox', { name: 'Contact lists' }).click();
  await page.getByRole('option', { name: 'Regulars (1)' }).click();
  await page.keyboard.press('Escape');
  const when = tab.getByLabel('Schedule (optional)');
  await when.fill('31/12/2030, 09:30 am');
  await when.press('Tab');
  await expect(when).toHaveValue('31/12/2030, 09:30 am');
  await expect(tab.getByRole('button', { name: 'Pick the day of the status' })).toBeVisible();
  await shot(page, 'status-schedule-1280');
  await tab.getByRole('button', { name: 'Schedule status' }).click();
  await expect(page.getByRole('status', { name: 'Status result' })).toBeVisible();
  // 09:30 in India is 04:00 UTC.
  expect((await jobsOf(request, token, user.id)).map((j) => j.scheduledTime)).toEqual([
    '2030-12-31T04:00:00.000Z',
  ]);
});
