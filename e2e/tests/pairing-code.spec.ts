import { apiLogin, createUser, expect, signInByStorage, test } from '../fixtures.ts';
import { CONNECTED_TEXT, expectConnectedThenClosed } from './support/link-dialog.ts';

const EXPIRED_TEXT = 'This code has expired. Get a new code to try again.';

/** A user with an instance that is waiting to be linked, signed in on the Instances page. */
async function pendingAccount(
  page: import('@playwright/test').Page,
  request: import('@playwright/test').APIRequestContext,
  phoneNumber: string,
) {
  const user = await createUser(request);
  const { token } = await apiLogin(request, user.username, user.password);
  const created = await request.post('/api/create-instance', {
    headers: { authorization: `Bearer ${token}` },
    data: { phoneNumber, sessionName: 'Shop phone' },
  });
  expect(created.ok()).toBe(true);
  // The QR image is never served here: only the pairing code starts the simulator's link timer.
  await page.route('**/api/*/QR*', (route) =>
    route.fulfill({ status: 404, json: { success: false, message: 'no QR' } }),
  );
  await signInByStorage(page, request, user.username, user.password);
  // Its timers seen by moving the clock on (expectConnectedThenClosed); it runs on by itself too.
  await page.clock.install();
  await page.goto('/#/instances');
  await page.getByRole('button', { name: 'Connect Shop phone' }).click();
  return page.getByRole('dialog', { name: /Connect WhatsApp/ });
}

test('QR modal → Link with phone number instead: the code as ABCD-EFGH, the steps, a countdown; the phone links', async ({
  page,
  request,
}) => {
  const dialog = await pendingAccount(page, request, '919800000771');
  const answer = page.waitForResponse(
    (r) => r.url().includes('/pairing-code') && r.request().method() === 'POST',
  );
  await dialog.getByRole('button', { name: 'Link with phone number instead' }).click();
  const body = (await (await answer).json()) as { code: string; expiresAt: string };
  expect(body.code).toMatch(/^[1-9A-HJ-NP-TV-Z]{8}$/);
  await expect(dialog.getByLabel('Pairing code')).toHaveText(
    `${body.code.slice(0, 4)}-${body.code.slice(4)}`,
  );
  await expect(dialog.getByRole('list', { name: 'Steps on the phone' })).toContainText('Linked devices');
  await expect(dialog.getByRole('list', { name: 'Steps on the phone' })).toContainText(
    'Link with phone number',
  );
  await expect(dialog.getByText(/Code expires in [0-2]:\d\d/)).toBeVisible();
  await page.screenshot({ path: '/tmp/wa-pairing-code.png' });
  // The simulator links 1 s after the first code was served.
  await expectConnectedThenClosed(page, dialog);
  const row = page.getByRole('table', { name: 'Instances' }).getByRole('row', { name: /Shop phone/ });
  await expect(row.getByText('CONNECTED', { exact: true })).toBeVisible();
});

test('an expired code says so; Get a new code asks the server for a new one (renew), which links', async ({
  page,
  request,
}) => {
  const dialog = await pendingAccount(page, request, '919800000772');
  const bodies: unknown[] = [];
  let first = true;
  await page.route('**/api/session/*/pairing-code', async (route) => {
    bodies.push(route.request().postDataJSON());
    // The first answer is a code about to expire (the server is not asked, so nothing links yet).
    if (first) {
      first = false;
      await route.fulfill({
        json: { success: true, code: 'ABCD2345', expiresAt: new Date(Date.now() + 2_000).toISOString() },
      });
      return;
    }
    await route.continue();
  });
  await dialog.getByRole('button', { name: 'Link with phone number instead' }).click();
  await expect(dialog.getByLabel('Pairing code')).toHaveText('ABCD-2345');
  await expect(dialog.getByText(EXPIRED_TEXT)).toBeVisible();
  await expect(dialog.getByText(/Code expires in/)).toHaveCount(0);

  const answer = page.waitForResponse((r) => r.url().includes('/pairing-code') && r.status() === 200);
  await dialog.getByRole('button', { name: 'Get a new code' }).click();
  const body = (await (await answer).json()) as { code: string };
  expect(bodies).toEqual([{}, { renew: true }]);
  await expect(dialog.getByLabel('Pairing code')).toHaveText(
    `${body.code.slice(0, 4)}-${body.code.slice(4)}`,
  );
  await expect(dialog.getByText(EXPIRED_TEXT)).toHaveCount(0);
  await expect(dialog.getByText(CONNECTED_TEXT)).toBeVisible();
});
