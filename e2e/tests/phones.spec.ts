import type { Page } from '@playwright/test';
// The minimal .xlsx writer of the server's import tests (one sheet, numbers as numbers).
import { xlsxOf } from '../../server/test/fakes/xlsx.ts';
import { createUser, expect, signInByStorage, test } from '../fixtures.ts';
import { contactsTable, onEmptyBulkPage, uploadResult } from './support/bulk.ts';

// Phone numbers as people write them, on the bulk page and in Add Instance.

async function upload(page: Page, name: string, buffer: Buffer, mimeType: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload CSV or Excel' }).click();
  await (await chooser).setFiles({ name, mimeType, buffer });
}

test('a Name,Mobile CSV of numbers written the Indian way loads them, from the Mobile column; an .xlsx too', async ({
  page,
  request,
}) => {
  await onEmptyBulkPage(page, request, 10);

  const csv =
    'Name,Mobile\r\n' +
    'Asha,09800015838\r\n' +
    'Ravi,0091 98000 15839\r\n' +
    'Meena,919800015840.0\r\n' +
    'Geeta,098000 15841\r\n';
  await upload(page, 'customers.csv', Buffer.from(csv, 'utf8'), 'text/csv');
  await expect(uploadResult(page)).toHaveText(
    'customers.csv: 4 phone numbers loaded. Skipped 1 line: 1 without a number (header or text).',
  );
  await expect(page.getByText("Numbers from the column 'Mobile'.", { exact: true })).toBeVisible();
  const table = contactsTable(page);
  await expect(table.getByRole('checkbox', { name: /^Select \d+$/ })).toHaveCount(4);
  for (const n of ['919800015838', '919800015839', '919800015840', '919800015841']) {
    await expect(table.getByRole('cell', { name: n, exact: true })).toBeVisible();
  }

  // The dashboard's 'Import from Excel' leads here: an Excel sheet loads the same way.
  const xlsx = xlsxOf([
    ['Customer', 'Phone Number', 'City'],
    ['Asha', '09800015842', 'Pune'],
    ['Ravi', 919800015843, 'Goa'],
    ['Meena', 9800015844, 'Delhi'],
  ]);
  await upload(
    page,
    'customers.xlsx',
    xlsx,
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  await expect(uploadResult(page)).toHaveText(
    'customers.xlsx: 3 phone numbers loaded. Skipped 1 line: 1 without a number (header or text).',
  );
  await expect(page.getByText("Numbers from the column 'Phone Number'.", { exact: true })).toBeVisible();
  for (const n of ['919800015842', '919800015843', '919800015844']) {
    await expect(table.getByRole('cell', { name: n, exact: true })).toBeVisible();
  }

  // Anything else is still refused with the spec's words.
  await upload(page, 'numbers.txt', Buffer.from('9800015838\n'), 'text/plain');
  await expect(page.getByRole('alert')).toHaveText('Please upload a CSV file');
});

test('Add Instance keeps a number typed without 91 as 91…, and says what is wrong with one that is no number', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { multi: false });
  const { token } = await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/instances');
  await page.getByRole('button', { name: 'ADD NEW' }).click();
  const add = page.getByRole('dialog', { name: 'Add New Instance' });
  const phone = add.getByRole('textbox', { name: 'Phone Number' });
  await add.getByLabel('Session Name').fill('Counter phone');

  await phone.fill('12345');
  await add.getByRole('button', { name: 'Create Instance' }).click();
  await expect(add.getByText('Invalid phone number: 12345', { exact: true })).toBeVisible();

  await phone.fill('9123456780');
  await expect(add.getByText('Saved as 919123456780', { exact: true })).toBeVisible();
  await add.getByRole('button', { name: 'Create Instance' }).click();
  const qr = page.getByRole('dialog', { name: /Connect WhatsApp/ });
  await expect(qr).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(qr).toBeHidden();

  const accounts = await request.get('/api/sessions', { headers: { authorization: `Bearer ${token}` } });
  expect(
    ((await accounts.json()) as { sessions: { phoneNumber: string; sessionId: string }[] }).sessions,
  ).toEqual([
    expect.objectContaining({
      phoneNumber: '919123456780',
      sessionId: expect.stringMatching(/^919123456780_/),
    }),
  ]);
  await expect(page.getByRole('row', { name: /Counter phone/ })).toContainText('919123456780');
});
