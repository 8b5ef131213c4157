import { expect, test } from '../fixtures.ts';
import { balanceBubble, ledger, userWithAccount } from './messaging-helpers.ts';
import { uploadList } from './support/bulk.ts';

const banner = (page: import('@playwright/test').Page) => page.getByRole('status', { name: 'Status' });
const contactsTable = (page: import('@playwright/test').Page) =>
  page.getByRole('table', { name: 'Select Phone Numbers' });

test('a CSV with a BOM, CRLF, a header, quotes, spaces, dashes and a duplicate gives the right numbers', async ({
  page,
  request,
}) => {
  await userWithAccount(page, request, { credits: 10 });
  await page.goto('/#/bulkmessage');
  await expect(page.getByRole('heading', { name: 'Send Bulk Message' })).toBeVisible();
  await expect(page.getByText('Click below to upload the List of Phone Numbers')).toBeVisible();
  await expect(page.getByText('No contacts uploaded')).toBeVisible();

  await uploadList(page, 'numbers.txt', '9876543210\n');
  await expect(page.getByRole('alert')).toHaveText('Please upload a CSV file');
  await expect(page.getByText('No contacts uploaded')).toBeVisible();

  const csv =
    '\uFEFFPhone Number,Name\r\n' +
    '"98765 43210","Asha, Kumar"\r\n' +
    '+91-98765-43211,Ravi\r\n' +
    '  91 98765 43212  ,Meena\r\n' +
    '\r\n' +
    '9876543210,Asha again\r\n' +
    '12345,Too short\r\n' +
    '(44) 7911-123456,London\r\n';
  await uploadList(page, 'contacts.csv', csv);
  await expect(page.getByRole('status', { name: 'Upload result' })).toHaveText(
    'contacts.csv: 4 phone numbers loaded. Skipped 3 lines: 1 without a number (header or text), 1 invalid (not a phone number), 1 duplicate.',
  );
  const table = contactsTable(page);
  const rows = table.getByRole('checkbox', { name: /^Select \d+$/ });
  await expect(rows).toHaveCount(4);
  for (const n of ['919876543210', '919876543211', '919876543212', '447911123456']) {
    await expect(table.getByRole('cell', { name: n, exact: true })).toBeVisible();
  }
  await expect(page.getByText('0 of 4 selected')).toBeVisible();
  await table.getByRole('checkbox', { name: 'Select All' }).check();
  await expect(page.getByText('4 of 4 selected')).toBeVisible();

  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Diwali sale starts today');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(page.getByRole('status', { name: 'Status' })).toHaveText(/Message sending Initiated/);
  await expect(page.getByText('0 of 4 selected')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Sending Progress' })).toHaveCount(0);
  await expect(page.getByLabel('Account Balance')).toHaveText('Balance: 6');
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveValue('');
});

test('the contacts credit-limit banner and the limit on a list longer than the balance', async ({
  page,
  request,
}) => {
  await userWithAccount(page, request, { credits: 2 });
  await page.goto('/#/bulkmessage');
  await uploadList(page, 'list.csv', '919800000011\n919800000012\n919800000013\n');
  const table = contactsTable(page);
  await expect(table.getByRole('checkbox', { name: 'Select All' })).toBeDisabled();
  await expect(
    page.getByText('Your contacts count is greater than credit limit. So Select All is disabled', {
      exact: true,
    }),
  ).toBeVisible();
  await table.getByRole('checkbox', { name: 'Select 919800000011' }).check();
  await table.getByRole('checkbox', { name: 'Select 919800000012' }).check();
  await expect(page.getByText('You have reached the credit limit', { exact: true })).toBeVisible();
  await expect(table.getByRole('checkbox', { name: 'Select 919800000013' })).toBeDisabled();
  await expect(page.getByText('2 of 3 selected')).toBeVisible();
});

test('a bulk send with a number that times out ends partly sent; Retry Failed appears and a retry is charged', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { user } = await userWithAccount(page, request, { credits: 10 });
  await page.goto('/#/bulkmessage');
  await expect(balanceBubble(page)).toHaveText('Balance: 10');
  await uploadList(page, 'mixed.csv', 'phone\n919800000021\n917040110001\n919800000022\n');
  const table = contactsTable(page);
  await table.getByRole('checkbox', { name: 'Select All' }).check();
  await expect(page.getByText('3 of 3 selected')).toBeVisible();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Your order is ready');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(banner(page)).toContainText('Message sending Failed');
  await expect(banner(page)).toContainText('2 sent, 1 failed — Retry Failed in Message Jobs');
  await expect(page.getByText('0 of 3 selected')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveValue('');
  // Two sent, the number not on WhatsApp refunded.
  await expect(balanceBubble(page)).toHaveText('Balance: 8');

  await banner(page).getByRole('button', { name: 'View All Jobs' }).click();
  await expect(page).toHaveURL(/#\/jobs$/);
  await page.getByRole('tab', { name: 'Failed' }).click();
  const row = page.getByRole('row').filter({ hasText: 'failed' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('2 / 3 (67%)');
  await expect(row).toContainText('Success: 2');
  await expect(row).toContainText('Failed: 1');
  await row.getByRole('button', { name: 'Retry Failed' }).click();
  // A time-out may have reached the phone: the retry asks before sending a second copy.
  const confirm = page.getByRole('dialog', { name: 'Confirm retry' });
  await confirm.getByRole('checkbox', { name: /Also send again the 1 whose delivery is unknown/ }).check();
  await confirm.getByRole('button', { name: 'Retry Failed' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Retrying 1 failed message' })).toBeVisible();

  // The retry reserved one credit again (and refunds it when the number fails again).
  await expect
    .poll(async () =>
      (await ledger(request, user.id)).filter((e) => e.reason === 'retry').map((e) => e.delta),
    )
    .toEqual([-1]);
  // The number fails again: the job is failed once more, still with its retry button.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(row.getByRole('button', { name: 'Retry Failed' })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
});

test('a user without bulk messaging is told so with no form, and the server refuses the send', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5, bulk: false });
  await page.goto('/#/bulkmessage');
  // The notice first, in view, and no form to fill in for nothing.
  await expect(page.getByText('Bulk messaging is not enabled for your account')).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Upload CSV' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send Now' })).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveCount(0);
  const res = await request.post(`/api/session/${accountId}/sendIndividualMessage`, {
    headers,
    data: { chatIds: ['919800000091'], content: 'Hello' },
  });
  expect(res.status()).toBe(403);
  expect(((await res.json()) as { message: string }).message).toBe(
    'Bulk messaging is not enabled for your account',
  );
});
