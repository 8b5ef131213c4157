import {
  ADMIN,
  createUser,
  expect,
  linkedUser,
  signInAsAdmin,
  signInByStorage,
  type TestUser,
  test,
} from '../fixtures.ts';
import { finishedJobs, sendIndividual } from './support/jobs.ts';

test.describe('Admin overview, audit log and API keys', () => {
  let asha: TestUser;

  test.beforeAll(async ({ request }) => {
    const linked = await linkedUser(request, {
      credits: 10,
      name: 'Overview Asha',
      phoneNumber: '919855500001',
    });
    asha = linked.user;
    const { token } = linked;
    await sendIndividual(request, token, linked.sessionId, { type: 'string', content: 'Overview message' });
    await finishedJobs(request, token, asha.id);
  });

  test('the Admin page opens on an overview of each managed user, above the user picker', async ({
    page,
    request,
  }) => {
    await signInAsAdmin(page, request);
    await page.goto('/#/adminDashboard');
    const overview = page.getByRole('region', { name: 'Overview' });
    await expect(overview.getByRole('heading', { name: 'Overview' })).toBeVisible();
    const row = page
      .getByRole('table', { name: 'Users overview' })
      .getByRole('row', { name: /Overview Asha/ });
    await expect(row.getByRole('cell')).toHaveText([
      'Overview Asha',
      asha.username,
      '9',
      '1',
      '1',
      '0.0%',
      // Delivered and replied, of the month's sent: the simulator's phone confirms
      // delivery a moment after the send.
      /^(0\.0|100\.0)%$/,
      '0.0%',
      '1 / 1',
      /\d/,
    ]);
    await expect(overview.getByRole('group', { name: 'Users' })).toContainText(/\d+/);
    await expect(
      page.getByRole('img', { name: /^Messages per day, last 30 days: [\d,]+ sent/ }),
    ).toBeVisible();
    // The spec's picker and report stay, below the overview.
    await expect(page.getByRole('heading', { name: 'Admin User' })).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'User' })).toBeVisible();

    await page.getByRole('tab', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Audit log' });
    const created = audit.getByRole('row', { name: new RegExp(`Created the user ${asha.username}`) });
    await expect(created).toContainText(ADMIN.username);
    // The details in words: 'Username: …', not the API's field names.
    await expect(created).toContainText(`Username: ${asha.username}`);
    await expect(created).not.toContainText(/is_bulk_messaging_enabled|is_multisession_supported/);
    await expect(
      audit.getByRole('row', { name: new RegExp(`Signed in ${asha.username}`) }).first(),
    ).toBeVisible();
  });

  test('a user makes an API key, a program uses it, the list shows the use, and revoking stops it', async ({
    page,
    request,
  }) => {
    await signInByStorage(page, request, asha.username, asha.password);
    await page.goto('/#/dashboard');
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'API keys' }).click();
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    await expect(page.getByText('No API keys yet.')).toBeVisible();

    await page.getByRole('textbox', { name: 'Key name' }).fill('Shop backend');
    // A key needs the password again: a wrong one says so and makes nothing.
    await page.getByLabel('Your password').fill('not-my-password');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByText('Password is incorrect')).toBeVisible();
    await page.getByLabel('Your password').fill(asha.password);
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByLabel('New API key').textContent()) ?? '';
    expect(key).toMatch(/^wak_[A-Za-z0-9_-]{43}$/);

    const used = await request.get('/api/userDetails', { headers: { authorization: `Bearer ${key}` } });
    expect(used.status()).toBe(200);
    await page.reload();
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /Shop backend/ });
    await expect(row).toContainText(key.slice(0, 12));
    await expect(row).not.toContainText('Never');
    await expect(row).toContainText('Active');
    await expect(page.getByText(key)).toHaveCount(0);

    await row.getByRole('button', { name: 'Revoke key Shop backend' }).click();
    await row.getByRole('button', { name: 'Revoke Shop backend' }).click();
    await expect(row).toContainText('Revoked by you');
    const refused = await request.get('/api/userDetails', { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status()).toBe(401);
  });

  test('a user adds a webhook, sees its secret once and its calls, and deletes it', async ({
    page,
    request,
  }) => {
    const user = await createUser(request, { name: 'Webhook Ravi' });
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/dashboard');
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Webhooks' }).click();
    await expect(page.getByRole('heading', { name: 'Webhooks' })).toBeVisible();
    await expect(page.getByText('No webhooks yet.')).toBeVisible();

    const url = page.getByRole('textbox', { name: 'URL' });
    await url.fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect(page.getByRole('alert')).toHaveText('Webhook URL must be a public address');

    // A public address that no event will ever be sent to (optout only, and this user has none).
    await url.fill('https://93.184.216.34/wa-events');
    await page.getByRole('checkbox', { name: /^job\.finished/ }).uncheck();
    await page.getByRole('checkbox', { name: /^message\.status/ }).uncheck();
    await page.getByRole('checkbox', { name: /^optout/ }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = (await page.getByLabel('Signing secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    const card = page.getByRole('region', { name: 'Webhook https://93.184.216.34/wa-events' });
    await expect(card).toContainText('optout');
    await expect(card.getByRole('table', { name: 'Calls to https://93.184.216.34/wa-events' })).toContainText(
      'No calls yet.',
    );
    await page.reload();
    await expect(page.getByText(secret)).toHaveCount(0);
    await page.getByRole('button', { name: 'Delete webhook https://93.184.216.34/wa-events' }).click();
    await expect(page.getByText('No webhooks yet.')).toBeVisible();
  });
});
