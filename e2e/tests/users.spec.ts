import crypto from 'node:crypto';
import { ADMIN, apiLogin, createUser, expect, loginViaUi, signInAsAdmin, test } from '../fixtures.ts';

const usersTable = (page: import('@playwright/test').Page) => page.getByRole('table', { name: 'Users' });

async function logout(page: import('@playwright/test').Page) {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/#\/login$/);
}

test('an admin creates a user and grants credits; the user signs in and sees the balance', async ({
  page,
}) => {
  const username = `m${crypto.randomBytes(4).toString('hex')}`;
  await loginViaUi(page, ADMIN.username, ADMIN.password);
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Manage Users' }).click();
  await expect(page.getByRole('heading', { name: 'Manage Users' })).toBeVisible();

  await page.getByRole('button', { name: 'Add User' }).click();
  const add = page.getByRole('dialog', { name: 'Add User' });
  await add.getByRole('button', { name: 'Create User' }).click();
  await expect(add.getByText('Name is required')).toBeVisible();
  await expect(add.getByText('Password must be at least 8 characters')).toBeVisible();
  await add.getByLabel('Name', { exact: true }).fill('Meera Iyer');
  await add.getByLabel('Username').fill(username);
  await add.getByLabel('Password', { exact: true }).fill('meera-pass-1');
  // Corrected fields lose their messages as they are typed, before the next submit.
  await expect(add.getByText('Password must be at least 8 characters')).toHaveCount(0);
  await expect(add.getByText('Name is required')).toHaveCount(0);
  await add.getByLabel('Bulk messaging enabled').check();
  await add.getByRole('button', { name: 'Create User' }).click();
  await expect(page.getByText(`User ${username} created`)).toBeVisible();

  const row = usersTable(page).getByRole('row', { name: new RegExp(username) });
  await expect(row).toContainText('Meera Iyer');
  await expect(row.getByRole('cell').nth(2)).toHaveText('0');

  await row.getByRole('button', { name: `Credits of ${username}` }).click();
  const credits = page.getByRole('dialog', { name: `Credits of ${username}` });
  await credits.getByLabel('Amount').fill('100000');
  await credits.getByLabel('Note').fill('Opening balance');
  await credits.getByRole('button', { name: 'Update Credits' }).click();
  await expect(page.getByText(`Added 1,00,000 credits to ${username}. New balance: 1,00,000`)).toBeVisible();
  await expect(row.getByRole('cell').nth(2)).toHaveText('1,00,000');

  // A negative amount removes credits.
  await row.getByRole('button', { name: `Credits of ${username}` }).click();
  await credits.getByLabel('Amount').fill('-500');
  await credits.getByRole('button', { name: 'Update Credits' }).click();
  await expect(page.getByText(`Removed 500 credits from ${username}. New balance: 99,500`)).toBeVisible();
  await expect(row.getByRole('cell').nth(2)).toHaveText('99,500');

  // The ledger shows both changes, newest first.
  await row.getByRole('button', { name: `Ledger of ${username}` }).click();
  const ledger = page.getByRole('dialog', { name: `Credit ledger of ${username}` });
  const entries = ledger.getByRole('table', { name: 'Credit ledger' }).getByRole('row');
  await expect(entries).toHaveCount(3);
  await expect(entries.nth(1)).toContainText('-500');
  await expect(entries.nth(1)).toContainText('99,500');
  await expect(entries.nth(2)).toContainText('+1,00,000');
  await expect(entries.nth(2)).toContainText('Opening balance');
  await page.screenshot({ path: '/tmp/i5-users-ledger.png' });
  await page.keyboard.press('Escape');
  await page.screenshot({ path: '/tmp/i5-users-1280.png', fullPage: true });

  await logout(page);
  await loginViaUi(page, username, 'meera-pass-1');
  await expect(page).toHaveURL(/#\/dashboard$/);
  await expect(page.getByRole('group', { name: 'Account Balance' })).toHaveText('Account Balance99,500');
  await expect(
    page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Bulk Messaging' }),
  ).toBeVisible();
});

test('edit name and flags, disable, and reset a password that the user asked for', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { name: 'Ravi Kumar', bulk: false, multi: false });
  // The user forgot the password (the public page records the request), in a tab of their own.
  const visitor = await page.context().newPage();
  await visitor.goto('/#/forgot-password');
  await visitor.getByLabel('Username').fill(user.username);
  await visitor.getByRole('button', { name: 'Request password reset' }).click();
  await expect(visitor.getByRole('status').filter({ hasText: 'administrator' })).toBeVisible();
  await visitor.close();

  await signInAsAdmin(page, request);
  await page.goto('/#/users');
  const requests = page.getByRole('region', { name: 'Password reset requests' });
  await expect(requests).toContainText(`Ravi Kumar (${user.username})`);
  await requests.getByRole('button', { name: `Set a new password for ${user.username}` }).click();
  const edit = page.getByRole('dialog', { name: `Edit ${user.username}` });
  await expect(edit.getByText(/asked for a password reset/)).toBeVisible();
  await edit.getByLabel('Name', { exact: true }).fill('Ravi K.');
  await edit.getByLabel('Multi-session supported').check();
  await edit.getByLabel('New password').fill('brand-new-pass');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(`User ${user.username} updated; the new password is set`)).toBeVisible();
  await expect(requests).toHaveCount(0);
  const row = usersTable(page).getByRole('row', { name: new RegExp(user.username) });
  await expect(row).toContainText('Ravi K.');

  // The new password works, the old one does not; the flag travels with the sign-in.
  const signedIn = await apiLogin(request, user.username, 'brand-new-pass');
  expect(
    (signedIn.user as { setting: { is_multisession_supported: number } }).setting.is_multisession_supported,
  ).toBe(1);
  expect(
    (
      await request.post('/api/auth/login', { data: { username: user.username, password: user.password } })
    ).status(),
  ).toBe(401);

  // Disabling shuts the user out.
  await row.getByRole('button', { name: `Edit ${user.username}` }).click();
  await edit.getByLabel('Account disabled').check();
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(row.getByText('Disabled', { exact: true })).toBeVisible();
  const refused = await request.post('/api/auth/login', {
    data: { username: user.username, password: 'brand-new-pass' },
  });
  expect(refused.status()).toBe(403);
});

test('Manage Users at 360 px: each user is a card with its actions, modals go full screen', async ({
  page,
  request,
}) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await createUser(request, { credits: 250000, name: 'Narrow Screen' });
  await signInAsAdmin(page, request);
  await page.goto('/#/users');
  const card = page
    .getByRole('list', { name: 'Users' })
    .getByRole('listitem')
    .filter({ hasText: 'Narrow Screen' });
  await expect(card.first()).toBeVisible();
  const credits = card.first().getByRole('button', { name: /^Credits of / });
  await credits.scrollIntoViewIfNeeded();
  await expect(credits).toBeInViewport();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await page.getByRole('button', { name: 'Add User' }).click();
  const add = page.getByRole('dialog', { name: 'Add User' });
  const box = await add.boundingBox();
  expect(box?.width).toBeGreaterThanOrEqual(355);
  // Nothing covers its close button.
  await add.getByRole('button', { name: 'Close' }).click();
  await expect(add).toBeHidden();
});
