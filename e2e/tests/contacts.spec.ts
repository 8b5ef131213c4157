import fs from 'node:fs';
import type { Page } from '@playwright/test';
// The same minimal .xlsx writer the server's import tests use (one sheet, numbers as numbers).
import { xlsxOf } from '../../server/test/fakes/xlsx.ts';
import { createUser, expect, signInByStorage, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';

/**
 * Contacts exported from a phone to Excel: a display name, a mobile column (Google-style cells with
 * several numbers, a number stored as a number, a national 0 prefix), a mostly empty home
 * column that also says 'Phone', e-mail and city. One row invalid, one a duplicate, one empty.
 */
const PHONE_EXPORT: (string | number)[][] = [
  ['Display Name', 'Mobile Phone', 'Home Phone', 'E-mail Address', 'City', 'Labels'],
  [
    'Asha Kumar',
    '+91 98765 43210 ::: +91 98111 22233',
    '',
    'asha@example.com',
    'Pune',
    '* myContacts ::: Family',
  ],
  ['Ravi Shah', 919876543211, '022 2654 3210', 'ravi@example.com', 'Mumbai', '* myContacts'],
  ['Meena Iyer', '098765 43212', '', '', 'Chennai', 'Family ::: Chennai shop'],
  ['Wrong Number', '12345', '', '', 'Delhi', ''],
  ['Asha (work)', '9876543210', '', '', 'Pune', 'Work'],
  ['No Number', '', '', 'nonumber@example.com', '', ''],
];

async function chooseFile(page: Page, name: string, buffer: Buffer, mimeType: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'File (.csv or .xlsx)' }).click();
  await (await chooser).setFiles({ name, mimeType, buffer });
}

test('a phone contacts export in Excel: preview, import counts, contacts, search, export, delete; opt-outs', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { credits: 0 });
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/contacts');
  await expect(page.getByRole('heading', { name: 'Contacts', level: 1 })).toBeVisible();
  const lists = page.getByRole('table', { name: 'Contact lists' });
  await expect(lists).toContainText('No contact lists yet. Import a CSV or Excel file to create one.');

  await page.getByRole('button', { name: 'Import contacts' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import contacts' });

  // Not a table: the page says so before anything is sent.
  await chooseFile(page, 'photo.csv', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), 'text/csv');
  await expect(dialog.getByRole('alert')).toHaveText('Error processing the file');
  await expect(dialog.getByRole('button', { name: 'Import' })).toBeDisabled();

  await chooseFile(
    page,
    'Phone contacts.xlsx',
    xlsxOf(PHONE_EXPORT),
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  const preview = dialog.getByRole('table', { name: 'File preview' });
  await expect(preview).toContainText('Asha Kumar');
  await expect(preview).toContainText('+91 98765 43210 ::: +91 98111 22233');
  // Two headers say 'Phone': the one whose values are numbers is the phone column.
  const phoneColumn = dialog.getByRole('combobox', { name: 'Phone column' });
  await expect(phoneColumn).toHaveValue('Mobile Phone');
  const mobileHeader = preview.getByRole('columnheader', { name: /Mobile Phone/ });
  await expect(mobileHeader).toContainText('Phone');
  await expect(preview.getByRole('columnheader', { name: /Display Name/ })).toContainText('{{name}}');
  await expect(preview.getByRole('columnheader', { name: /City/ })).toContainText('{{city}}');
  await expect(preview.getByRole('columnheader', { name: /Home Phone/ })).toContainText('{{home_phone}}');
  // Google Contacts' Labels column gives tags, not a field.
  await expect(preview.getByRole('columnheader', { name: /Labels/ })).toContainText('Tags');
  // Another phone column can be chosen, and the preview follows.
  await phoneColumn.click();
  await page.getByRole('option', { name: 'Home Phone' }).click();
  await expect(phoneColumn).toHaveValue('Home Phone');
  await expect(preview.getByRole('columnheader', { name: /Mobile Phone/ })).toContainText('{{mobile_phone}}');
  await phoneColumn.click();
  await page.getByRole('option', { name: 'Mobile Phone' }).click();
  await expect(phoneColumn).toHaveValue('Mobile Phone');

  await expect(dialog.getByRole('textbox', { name: 'List name' })).toHaveValue('Phone contacts');
  if (process.env.SCREENSHOTS_DIR) {
    await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/contacts-import-preview.png` });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/contacts-import-preview-360.png` });
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  await dialog.getByRole('textbox', { name: 'List name' }).fill('Diwali customers');
  await dialog.getByRole('button', { name: 'Import' }).click();
  await expect(dialog.getByRole('status', { name: 'Import result' })).toHaveText(
    "Imported 3 contacts into 'Diwali customers' (phone column: Mobile Phone). Skipped: 1 invalid, 1 duplicate, 1 empty.",
  );
  if (process.env.SCREENSHOTS_DIR) {
    await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/contacts-import.png` });
  }
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toHaveCount(0);

  const row = lists.getByRole('row').filter({ hasText: 'Diwali customers' });
  await expect(row).toContainText('3');
  await expect(row).toContainText('name');
  await expect(row).toContainText('email_address');
  await expect(row).not.toContainText('labels');
  await row.getByRole('button', { name: 'View contacts of Diwali customers' }).click();
  const contacts = page.getByRole('table', { name: 'Contacts of Diwali customers' });
  await expect(contacts.getByRole('row')).toHaveCount(4);
  const asha = contacts.getByRole('row').filter({ hasText: '919876543210' });
  await expect(asha).toContainText('Asha Kumar');
  await expect(asha).toContainText('Pune');
  await expect(asha).toContainText('Family');
  await expect(asha).not.toContainText('myContacts');
  await expect(contacts.getByRole('row').filter({ hasText: '919876543211' })).toContainText('Ravi Shah');
  await expect(contacts.getByRole('row').filter({ hasText: '919876543212' })).toContainText('Meena Iyer');
  if (process.env.SCREENSHOTS_DIR) {
    await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/contacts-page.png`, fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/contacts-page-360.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  await page.getByRole('textbox', { name: 'Search contacts' }).fill('ravi');
  await expect(contacts.getByRole('row')).toHaveCount(2);
  await expect(contacts).toContainText('919876543211');
  await expect(page.getByText("1 contact matching 'ravi'")).toBeVisible();
  await page.getByRole('textbox', { name: 'Search contacts' }).fill('43212');
  await expect(contacts.getByRole('row')).toHaveCount(2);
  await expect(contacts).toContainText('Meena Iyer');
  await page.getByRole('textbox', { name: 'Search contacts' }).fill('Family');
  await expect(contacts.getByRole('row')).toHaveCount(3);
  await expect(contacts).toContainText('Asha Kumar');
  await expect(contacts).toContainText('Meena Iyer');
  await page.getByRole('textbox', { name: 'Search contacts' }).fill('');
  await expect(contacts.getByRole('row')).toHaveCount(4);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    row.getByRole('button', { name: 'Export CSV: Diwali customers' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('Diwali customers.csv');
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\r\n').filter(Boolean)).toEqual([
    '\uFEFFphone_number,name,home_phone,email_address,city,tags',
    '919876543210,Asha Kumar,,asha@example.com,Pune,Family',
    '919876543211,Ravi Shah,022 2654 3210,ravi@example.com,Mumbai,',
    '919876543212,Meena Iyer,,,Chennai,Family ::: Chennai shop',
  ]);

  // Opt-outs: add a number as a person types it; the list and the contact show it.
  const optOuts = page.getByRole('region', { name: 'Opt-outs' });
  const optOutTable = optOuts.getByRole('table', { name: 'Opt-out list' });
  await expect(optOutTable).toContainText('No one has opted out.');
  await optOuts.getByRole('textbox', { name: 'Numbers to opt out' }).fill('098765 43212\n12345');
  await optOuts.getByRole('button', { name: 'Add to opt-outs' }).click();
  // The good line is added and the bad one listed (one bad line no longer
  // refuses the whole paste).
  await expect(optOuts.getByRole('alert')).toHaveText('Not added, not phone numbers (1): 12345');
  await expect(optOuts.getByRole('status', { name: 'Opt-out result' })).toHaveText('1 number opted out');
  const optedRow = optOutTable.getByRole('row').filter({ hasText: '919876543212' });
  await expect(optedRow).toContainText('Added by you');
  await expect(contacts.getByRole('row').filter({ hasText: '919876543212' })).toContainText('Opted out');
  await expect(row.getByRole('cell').nth(2)).toHaveText('1');

  await optedRow.getByRole('button', { name: 'Remove 919876543212 from opt-outs' }).click();
  await expect(optOutTable).toContainText('No one has opted out.');
  await expect(contacts.getByRole('row').filter({ hasText: '919876543212' })).toContainText('Active');
  await expect(row.getByRole('cell').nth(2)).toHaveText('0');

  // Delete asks first; Cancel keeps the list.
  await row.getByRole('button', { name: 'Delete Diwali customers' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete contact list' });
  await expect(confirm).toContainText("Delete 'Diwali customers' and its 3 contacts?");
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(row).toHaveCount(1);
  await row.getByRole('button', { name: 'Delete Diwali customers' }).click();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(lists).toContainText('No contact lists yet. Import a CSV or Excel file to create one.');
  await expect(contacts).toHaveCount(0);
});

test("a group's members saved as a contact list from the Group List's detail panel", async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 0 });
  type Chat = { groupName: string; participants: { phoneNumber: string }[] };
  let groups: Chat[] = [];
  await expect
    .poll(async () => {
      const res = await request.get(`/api/groupChats/${accountId}`, { headers });
      groups = ((await res.json()) as { groups: Chat[] }).groups;
      return groups.length;
    })
    .toBeGreaterThan(0);
  const group = groups
    .filter((g) =>
      g.participants.some((p) => /^[0-9]+$/.test(p.phoneNumber) && p.phoneNumber !== '919800000001'),
    )
    .sort((a, b) => b.participants.length - a.participants.length)[0]!;
  const members = new Set(group.participants.map((p) => p.phoneNumber));

  await page.goto('/#/groups');
  // The Group List draws only the rows in view (the group may be the last of 12): find it by the
  // search first, as groups.spec does.
  await page.getByRole('textbox', { name: 'Search groups' }).fill(group.groupName);
  await page.getByRole('table').getByRole('button', { name: group.groupName, exact: true }).click();
  const panel = page.getByRole('dialog', { name: 'Group Details' });
  await panel.getByRole('button', { name: 'Save members as a contact list' }).click();
  const saved = panel.getByRole('status', { name: 'Saved members' });
  await expect(saved).toHaveText(/^Saved [0-9,]+ members? as the contact list '.+'/);
  const imported = Number(/Saved ([0-9,]+)/.exec((await saved.textContent()) ?? '')![1]!.replace(/,/g, ''));
  expect(imported).toBeGreaterThan(0);

  // The list holds the group's members, not the account itself, each with a role.
  const lists = (await (await request.get('/api/contact-lists', { headers })).json()) as {
    lists: { id: string; name: string; count: number; fields: string[] }[];
  };
  expect(lists.lists).toHaveLength(1);
  const list = lists.lists[0]!;
  expect(list).toMatchObject({ name: group.groupName.trim(), count: imported, fields: ['role'] });
  const contacts = (await (
    await request.get(`/api/contact-lists/${list.id}/contacts?limit=1000`, { headers })
  ).json()) as { contacts: { phoneNumber: string; fields: { role: string } }[] };
  expect(contacts.contacts).toHaveLength(imported);
  for (const c of contacts.contacts) {
    expect(members.has(c.phoneNumber)).toBe(true);
    expect(['Super Admin', 'Admin', 'Member']).toContain(c.fields.role);
  }
  expect(contacts.contacts.some((c) => c.phoneNumber === '919800000001')).toBe(false);

  await page.goto('/#/contacts');
  await expect(
    page.getByRole('table', { name: 'Contact lists' }).getByRole('row').filter({ hasText: 'role' }),
  ).toContainText(String(imported));
});
