import type { Page } from '@playwright/test';
import { ADMIN, apiLogin, expect, test } from '../fixtures.ts';
import { balanceBubble, userWithAccount } from './messaging-helpers.ts';

async function chooseFile(page: Page, name: string, content: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'File (.csv or .xlsx)' }).click();
  await (await chooser).setFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(content, 'utf8') });
}

test('consent: an import confirmed with its purpose, a send that leaves out numbers without consent, a Hindi opt-out, a data request and an erasure', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { user, sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 10 });

  // The import asks whether the people agreed, and for what; never ticked by default.
  await page.goto('/#/contacts');
  await page.getByRole('button', { name: 'Import contacts' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import contacts' });
  await chooseFile(page, 'customers.csv', 'phone,name\n9800000071,Asha\n');
  const agreed = dialog.getByRole('checkbox', {
    name: 'The people on this list agreed to receive messages from us',
  });
  await expect(agreed).not.toBeChecked();
  await agreed.check();
  await expect(dialog.getByRole('button', { name: 'Import' })).toBeDisabled();
  await dialog.getByRole('textbox', { name: 'Purpose' }).fill('Order updates');
  await dialog.getByRole('button', { name: 'Import' }).click();
  await expect(dialog.getByRole('status', { name: 'Import result' })).toContainText(
    'Consent recorded for: Order updates.',
  );
  await dialog.getByRole('button', { name: 'Done' }).click();
  const lists = page.getByRole('table', { name: 'Contact lists' });
  await expect(lists).toContainText('Order updates');
  await expect(lists).toContainText(`customers.csv, by ${user.username}`);

  // The admin's setting: one-to-one sends only to numbers with consent.
  const admin = await apiLogin(request, ADMIN.username, ADMIN.password);
  const set = await request.patch(`/api/admin/users/${user.id}`, {
    headers: { authorization: `Bearer ${admin.token}` },
    data: { consent_required: true },
  });
  expect(set.ok()).toBe(true);

  await page.goto('/#/bulkmessage');
  await expect(balanceBubble(page)).toHaveText('Balance: 10');
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload CSV' }).click();
  await (await chooser).setFiles({
    name: 'mixed.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('phone\n9800000071\n9800000072\n'),
  });
  await page
    .getByRole('table', { name: 'Select Phone Numbers' })
    .getByRole('checkbox', { name: 'Select All' })
    .check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Your order is ready');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(page.getByRole('status', { name: 'Numbers without consent' })).toHaveText(
    '1 number was left out without consent (not charged): 919800000072.',
  );
  await expect(balanceBubble(page)).toHaveText('Balance: 9');

  // A customer writes 'बंद करो': opted out, with the word and the message shown.
  const inbound = await request.post(`/api/simulator/sessions/${accountId}/inbound`, {
    headers,
    data: { from: '919800000071', text: 'बंद करो।' },
  });
  expect(inbound.ok()).toBe(true);
  await page.goto('/#/contacts');
  const optOuts = page.getByRole('table', { name: 'Opt-out list' });
  await expect(optOuts).toContainText('919800000071');
  await expect(optOuts).toContainText('बंद करो।');

  // The person asks what is held about them, then to be erased.
  const box = page.getByRole('region', { name: 'Data requests' });
  await box.getByRole('textbox', { name: 'Phone number' }).fill('98000 00071');
  await box.getByRole('button', { name: 'Show data' }).click();
  const held = box.getByRole('region', { name: 'Data held about 919800000071' });
  await expect(held).toContainText("List 'customers', name Asha; consent: Order updates (customers.csv");
  await expect(held).toContainText('Opted out');
  await expect(held).toContainText('1 message sent or queued');
  const download = page.waitForEvent('download');
  await box.getByRole('button', { name: 'Download CSV' }).click();
  expect((await download).suggestedFilename()).toBe('personal-data-919800000071.csv');

  await box.getByRole('button', { name: 'Erase this number' }).click();
  const confirm = page.getByRole('dialog', { name: 'Erase this number?' });
  await expect(confirm).toContainText('This cannot be undone.');
  await confirm.getByRole('button', { name: 'Erase' }).click();
  await expect(box.getByRole('status', { name: 'Erasure result' })).toHaveText(
    'Erased: removed from 1 list; in 1 past message a token stands for the number, and sends leave it out.',
  );
  await expect(optOuts).not.toContainText('919800000071');
});
