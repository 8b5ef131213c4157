import * as OTPAuth from 'otpauth';
import { createUser, expect, loginViaUi, test } from '../fixtures.ts';

/** The code an authenticator app would show for `secret` now (generated here with otpauth). */
const codeFor = (secret: string, aheadMs = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + aheadMs,
  });

test('two-factor sign-in: set up from the avatar menu, sign in with the code, turn it off', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { credits: 10 });
  await loginViaUi(page, user.username, user.password);
  await expect(page).toHaveURL(/#\/dashboard$/);

  // Set up: QR and key shown, a code confirms, ten recovery codes are shown once.
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Two-factor sign-in' });
  await expect(dialog.getByText('Two-factor sign-in is off.', { exact: false })).toBeVisible();
  await dialog.getByRole('button', { name: 'Set up' }).click();
  await expect(dialog.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = (await dialog.getByTestId('totp-secret').textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await dialog.getByLabel('Authentication code').fill('000000' === codeFor(secret) ? '111111' : '000000');
  await dialog.getByRole('button', { name: 'Turn on' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('The code is not valid. Please try again.');
  await dialog.getByLabel('Authentication code').fill(codeFor(secret));
  await dialog.getByRole('button', { name: 'Turn on' }).click();
  const codes = dialog.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await expect(codes).toHaveCount(10);
  const recovery = (await codes.first().textContent())!.trim();
  await dialog.getByRole('button', { name: 'Done' }).click();

  // Sign out; the password alone now asks for the code.
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/#\/login$/);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Login' }).click();
  const codeField = page.getByLabel('Authentication code');
  await expect(codeField).toBeVisible();
  await expect(page).toHaveURL(/#\/login$/);
  await codeField.fill('123456' === codeFor(secret) ? '654321' : '123456');
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByRole('alert')).toHaveText('The code is not valid. Please try again.');
  // The code that turned it on is spent (a code is used once): the next 30 s
  // step's code, which the server accepts one step either side.
  await codeField.fill(codeFor(secret, 30_000));
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/#\/dashboard$/);

  // Turn it off with a recovery code; the next sign-in needs the password only.
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
  await expect(dialog.getByText('Two-factor sign-in is on.')).toBeVisible();
  await dialog.getByLabel('Authentication code or recovery code').fill(recovery);
  await dialog.getByRole('button', { name: 'Turn off' }).click();
  await expect(dialog.getByText('Two-factor sign-in is off.', { exact: false })).toBeVisible();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await loginViaUi(page, user.username, user.password);
  await expect(page).toHaveURL(/#\/dashboard$/);
});
