import type { Page } from '@playwright/test';
import {
  apiLogin,
  createLinkedAccount,
  createUser,
  expect,
  loginViaUi,
  signInByStorage,
  test,
} from '../fixtures.ts';
import { PNG_1X1 } from './support/jobs.ts';
import { expectConnectedThenClosed } from './support/link-dialog.ts';

const ONLY_ONE = 'Only one instance is allowed. Please remove the existing instance first.';

const accountsTable = (page: Page) => page.getByRole('table', { name: 'Instances' });

test('add an instance (both validation messages), link it by QR and see CONNECTED; then the limit', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { multi: false });
  await page.clock.install();
  await loginViaUi(page, user.username, user.password);
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Instances' })
    .click();
  await expect(page.getByRole('heading', { name: /^Instances/ })).toBeVisible();
  await expect(page.getByLabel('0 instances')).toBeVisible();
  await expect(page.getByText(ONLY_ONE)).toHaveCount(0);

  await page.getByRole('button', { name: 'ADD NEW' }).click();
  const add = page.getByRole('dialog', { name: 'Add New Instance' });
  await expect(add.getByLabel('Phone Number')).toHaveAttribute('placeholder', /country code/);
  await add.getByRole('button', { name: 'Create Instance' }).click();
  await expect(add.getByText('Please enter a phone number')).toBeVisible();
  await expect(add.getByText('Please enter a session name')).toBeVisible();
  await add.getByLabel('Phone Number').fill('919800000123');
  await add.getByRole('button', { name: 'Create Instance' }).click();
  await expect(add.getByText('Please enter a phone number')).toHaveCount(0);
  await expect(add.getByText('Please enter a session name')).toBeVisible();
  await add.getByLabel('Session Name').fill('Front desk');
  await add.getByRole('button', { name: 'Create Instance' }).click();

  // The QR modal: the image with its countdown; the simulator links 1 s after the QR is served.
  const qr = page.getByRole('dialog', { name: /Connect WhatsApp/ });
  await expect(qr.getByRole('img', { name: 'QR code to link WhatsApp' })).toBeVisible();
  await expect(qr.getByText(/QR code refreshes in \d+s/)).toBeVisible();
  // It says connected, closes by itself 3 s later and the list reloads.
  await expectConnectedThenClosed(page, qr);
  const row = accountsTable(page).getByRole('row', { name: /Front desk/ });
  await expect(row).toContainText('919800000123');
  await expect(row.getByText('CONNECTED', { exact: true })).toBeVisible();
  await expect(page.getByLabel('1 instances')).toBeVisible();

  // A single-session user has reached the limit.
  await expect(page.getByRole('button', { name: 'ADD NEW' })).toBeDisabled();
  await expect(page.getByText(ONLY_ONE)).toBeVisible();
  await page.screenshot({ path: '/tmp/i5-instances-1280.png', fullPage: true });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.screenshot({ path: '/tmp/i5-instances-360.png', fullPage: true });
});

test('terminate asks for confirmation, then removes the session', async ({ page, request }) => {
  const user = await createUser(request);
  await createLinkedAccount(request, user, { sessionName: 'Old phone', phoneNumber: '919800000456' });
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/instances');
  const row = accountsTable(page).getByRole('row', { name: /Old phone/ });
  await expect(row.getByText('CONNECTED', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'ADD NEW' })).toBeDisabled();

  // Cancel keeps it.
  await row.getByRole('button', { name: 'Terminate Old phone' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm Termination' });
  await expect(confirm).toContainText('Old phone');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(row).toBeVisible();

  await row.getByRole('button', { name: 'Terminate Old phone' }).click();
  await confirm.getByRole('button', { name: 'Terminate' }).click();
  await expect(page.getByText('Session terminated successfully')).toBeVisible();
  await expect(row).toHaveCount(0);
  await expect(page.getByLabel('0 instances')).toBeVisible();
  await expect(page.getByRole('button', { name: 'ADD NEW' })).toBeEnabled();
  await expect(page.getByText(ONLY_ONE)).toHaveCount(0);
  // The server agrees.
  const { token } = await apiLogin(request, user.username, user.password);
  const accounts = await (
    await request.get('/api/sessions', { headers: { authorization: `Bearer ${token}` } })
  ).json();
  expect(accounts.sessions).toEqual([]);
});

test('QR fetch: 3 retries 1 s apart, then the failure text and Retry, which links', async ({
  page,
  request,
}) => {
  const user = await createUser(request);
  const { token } = await apiLogin(request, user.username, user.password);
  const created = await request.post('/api/create-instance', {
    headers: { authorization: `Bearer ${token}` },
    data: { phoneNumber: '919800000789', sessionName: 'Back office' },
  });
  expect(created.ok()).toBe(true);

  const qrCalls: number[] = [];
  await page.route('**/api/*/QR?t=*', async (route) => {
    qrCalls.push(Date.now());
    await route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: '{"success":false,"message":"down"}',
    });
  });
  await signInByStorage(page, request, user.username, user.password);
  await page.clock.install();
  await page.goto('/#/instances');
  const row = accountsTable(page).getByRole('row', { name: /Back office/ });
  await expect(row.getByText('PENDING', { exact: true })).toBeVisible();
  const opened = Date.now();
  await row.getByRole('button', { name: 'Connect Back office' }).click();
  const qr = page.getByRole('dialog', { name: /Connect WhatsApp/ });
  await expect(qr.getByText('Failed to fetch QR code. Please try again.')).toBeVisible();
  // One try and three retries, the first after the 1 s wait, then 1 s apart.
  expect(qrCalls).toHaveLength(4);
  expect(qrCalls[0]! - opened).toBeGreaterThanOrEqual(900);
  for (let i = 1; i < 4; i++) expect(qrCalls[i]! - qrCalls[i - 1]!).toBeGreaterThanOrEqual(900);

  await page.unroute('**/api/*/QR?t=*');
  await qr.getByRole('button', { name: 'Retry' }).click();
  await expect(qr.getByRole('img', { name: 'QR code to link WhatsApp' })).toBeVisible();
  await expectConnectedThenClosed(page, qr);
  await expect(row.getByText('CONNECTED', { exact: true })).toBeVisible();
});

/**
 * Stops the page's clock about where it is now. Its time runs on while the test asks for it, and
 * `pauseAt` refuses a time already past: on a busy machine more than a few ms may go between the
 * two calls, so it asks again.
 */
async function pauseClockNow(page: Page): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const now = await page.evaluate(() => Date.now());
    try {
      await page.clock.pauseAt(now + 20);
      return;
    } catch (err) {
      if (attempt >= 5 || !String(err).includes('past')) throw err;
    }
  }
}

test('the QR image refreshes after its 15 s countdown', async ({ page, request }) => {
  const user = await createUser(request);
  const { token } = await apiLogin(request, user.username, user.password);
  await request.post('/api/create-instance', {
    headers: { authorization: `Bearer ${token}` },
    data: { phoneNumber: '919800000321', sessionName: 'Slow scan' },
  });
  // Nobody scans: the status stays 'not connected' and the QR is served from here, so the
  // simulator (which links once a QR was served) never links and the countdown runs out.
  let statusCalls = 0;
  await page.route('**/api/*/status', (route) => {
    statusCalls += 1;
    return route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ success: true, connected: false, status: 'PENDING', statusReason: null }),
    });
  });
  let qrCalls = 0;
  await page.route('**/api/*/QR?t=*', (route) => {
    qrCalls += 1;
    return route.fulfill({ status: 200, contentType: 'image/png', body: PNG_1X1 });
  });
  await signInByStorage(page, request, user.username, user.password);
  // The page's clock, stopped once the countdown shows 14 s and then moved on by hand: the 15 s
  // and 3 s timers are seen to the second without waiting for them.
  await page.clock.install();
  await page.goto('/#/instances');
  await accountsTable(page).getByRole('button', { name: 'Connect Slow scan' }).click();
  const qr = page.getByRole('dialog', { name: /Connect WhatsApp/ });
  await expect(qr.getByText('QR code refreshes in 15s')).toBeVisible();
  await expect(qr.getByText('QR code refreshes in 14s')).toBeVisible();
  await pauseClockNow(page);
  await expect(qr.getByText('QR code refreshes in 14s')).toBeVisible();
  // A request sent before the stop has arrived.
  await page.waitForTimeout(300);
  const polledBefore = statusCalls;
  expect(qrCalls).toBe(1);
  // 13 s on, the countdown says 1 s, and no new QR was asked for.
  await page.clock.runFor(13_000);
  await expect(qr.getByText('QR code refreshes in 1s')).toBeVisible();
  expect(qrCalls).toBe(1);
  // At 15 s after the first, the QR is asked for again and the countdown starts over.
  await page.clock.runFor(1_000);
  await expect.poll(() => qrCalls).toBe(2);
  await expect(qr.getByText('QR code refreshes in 15s')).toBeVisible();
  // The status was asked every 3 s all along: five times in 15 s.
  await page.clock.runFor(1_000);
  await expect.poll(() => statusCalls - polledBefore).toBe(5);
  // Closing the modal stops the polling: nothing in the next 3.5 s.
  await qr.getByRole('button', { name: 'Close' }).click();
  await page.clock.runFor(3_500);
  await expect(qr).toBeHidden();
  await page.waitForTimeout(300);
  expect(statusCalls - polledBefore).toBe(5);
});

test('status badges: CONNECTED, DISCONNECTED, PENDING, unknown, with the reason in words', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { multi: true });
  const account = (n: number, status: string, statusReason: string | null) => ({
    id: `id${n}`,
    sessionId: `9198000000${n}0_s${n}`,
    phoneNumber: `9198000000${n}0`,
    sessionName: `Phone ${n}`,
    status,
    statusReason,
    createdAt: '2026-11-20T10:00:00.000Z',
  });
  await page.route('**/api/sessions', (route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({
        success: true,
        sessions: [
          account(1, 'CONNECTED', null),
          account(2, 'DISCONNECTED', 'Logged out from the phone'),
          account(3, 'PENDING', null),
          account(4, 'SOMETHING_ELSE', null),
        ],
      }),
    }),
  );
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/instances');
  const table = accountsTable(page);
  await expect(
    table.getByRole('row', { name: /Phone 1/ }).getByText('CONNECTED', { exact: true }),
  ).toBeVisible();
  const second = table.getByRole('row', { name: /Phone 2/ });
  await expect(second.getByText('DISCONNECTED', { exact: true })).toBeVisible();
  await expect(second.getByText('Logged out from the phone')).toBeVisible();
  await expect(
    table.getByRole('row', { name: /Phone 3/ }).getByText('PENDING', { exact: true }),
  ).toBeVisible();
  await expect(
    table.getByRole('row', { name: /Phone 4/ }).getByText('unknown', { exact: true }),
  ).toBeVisible();
  // A connected account has nothing to scan.
  await expect(table.getByRole('button', { name: 'Connect Phone 1' })).toHaveCount(0);
  // A multi-session user below 10 instances may add more.
  await expect(page.getByRole('button', { name: 'ADD NEW' })).toBeEnabled();
  await expect(page.getByLabel('4 instances')).toBeVisible();
});

test('Refresh reloads the list; a multi-session user is stopped at 10 instances', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { multi: true });
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/instances');
  await expect(page.getByLabel('0 instances')).toBeVisible();
  await expect(page.getByText('No instances yet.', { exact: false })).toBeVisible();

  // Instances added elsewhere (here: through the API) show after Refresh.
  const { token } = await apiLogin(request, user.username, user.password);
  for (let i = 1; i <= 10; i++) {
    const res = await request.post('/api/create-instance', {
      headers: { authorization: `Bearer ${token}` },
      data: { phoneNumber: `91980000${String(i).padStart(4, '0')}`, sessionName: `Line ${i}` },
    });
    expect(res.ok()).toBe(true);
  }
  await expect(page.getByLabel('0 instances')).toBeVisible();
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByLabel('10 instances')).toBeVisible();
  await expect(accountsTable(page).getByRole('row')).toHaveCount(11);
  await expect(page.getByRole('button', { name: 'ADD NEW' })).toBeDisabled();
  await expect(
    page.getByText('You can have at most 10 instances. Please remove an existing instance first.'),
  ).toBeVisible();
  await expect(page.getByText(ONLY_ONE)).toHaveCount(0);
});
