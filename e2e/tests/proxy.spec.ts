import { expect, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';

test('a proxy per account: set in Account settings without showing the password back, tested, removed', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 1 });
  await page.goto('/#/instances');
  await page.getByRole('button', { name: /^Account settings / }).click();
  const section = page.getByRole('dialog').getByRole('region', { name: 'Proxy' });
  await expect(section).toContainText('Connects directly (no proxy).');

  // A proxy nobody listens on: the test says it refused.
  await section.getByRole('textbox', { name: 'Proxy address' }).fill('socks5://127.0.0.1:1');
  await section.getByRole('textbox', { name: 'Proxy user' }).fill('shop');
  await section.getByLabel('Proxy password').fill('s3cret');
  await section.getByRole('button', { name: 'Test proxy' }).click();
  await expect(section.getByRole('status', { name: 'Proxy test' })).toContainText(
    'Proxy refused the connection (127.0.0.1:1)',
  );

  await section.getByRole('button', { name: 'Save proxy' }).click();
  await expect(section.getByRole('status', { name: 'Proxy result' })).toHaveText(
    'Proxy saved: the account reconnects through it',
  );
  await expect(section).toContainText('Connects through socks5://127.0.0.1:1 as shop (password saved).');
  const stored = await request.get(`/api/session/${accountId}/proxy`, { headers });
  expect(JSON.stringify(await stored.json())).not.toContain('s3cret');

  await section.getByRole('button', { name: 'Remove proxy' }).click();
  await expect(section).toContainText('Connects directly (no proxy).');
});
