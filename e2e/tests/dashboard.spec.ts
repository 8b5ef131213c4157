import {
  ADMIN,
  apiLogin,
  createLinkedAccount,
  createUser,
  expect,
  linkedUser,
  loginViaUi,
  signInByStorage,
  test,
} from '../fixtures.ts';
import { jobStatus } from './support/customer.ts';
import { expectConnectedThenClosed } from './support/link-dialog.ts';

const card = (page: import('@playwright/test').Page, name: string) => page.getByRole('group', { name });

/** A stat card reads its label, then exactly this figure. */
const expectFigure = async (page: import('@playwright/test').Page, name: string, value: string) =>
  expect(card(page, name)).toHaveText(`${name}${value}`);

test('a new user sees the balance in en-IN, zero figures and no recent messages', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { credits: 100000 });
  await loginViaUi(page, user.username, user.password);
  await expect(page).toHaveURL(/#\/dashboard$/);
  await expect(page.getByRole('heading', { name: 'Dashboard', exact: true })).toBeVisible();
  await expectFigure(page, 'Account Balance', '1,00,000');
  await expectFigure(page, 'Total Groups', '0');
  await expectFigure(page, 'Total Members', '0');
  await expectFigure(page, 'Messages Sent', '0');
  await expectFigure(page, 'Delivery Rate', '0%');
  await expect(page.getByText('No recent messages')).toBeVisible();
});

test('the figures are real: groups of the linked session, members, sent messages, latest jobs', async ({
  page,
  request,
}) => {
  const { user, sessionId: accountId, token } = await linkedUser(request, { credits: 1234567 });
  const headers = { authorization: `Bearer ${token}` };
  const groups = (await (await request.get(`/api/groupsList/${accountId}`, { headers })).json()) as {
    count: number;
    groups: { groupId: string; groupName: string; participantCount: number }[];
  };
  expect(groups.count).toBeGreaterThan(0);
  const members = groups.groups.reduce((sum, g) => sum + g.participantCount, 0);

  // One text message to two groups, sent through the API and finished before the page loads.
  const sent = await request.post(`/api/session/${accountId}/sendBulkMessage`, {
    headers,
    data: {
      // The announce-only group refuses members' messages.
      chatIds: groups.groups
        .filter((g) => g.groupName !== 'Announcements (admins only)')
        .slice(0, 2)
        .map((g) => g.groupId),
      type: 'string',
      content: 'Diwali offer',
    },
  });
  expect(sent.ok()).toBe(true);
  const { jobId } = (await sent.json()) as { jobId: string };
  await expect
    .poll(async () => (await jobStatus(request, headers, jobId)).status, { timeout: 20_000 })
    .toBe('completed');

  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/dashboard');
  await expectFigure(page, 'Total Groups', new Intl.NumberFormat('en-IN').format(groups.count));
  await expectFigure(page, 'Total Members', new Intl.NumberFormat('en-IN').format(members));
  await expectFigure(page, 'Messages Sent', '2');
  // The balance was read again after the send: two credits spent.
  await expectFigure(page, 'Account Balance', '12,34,565');
  const recent = page.getByRole('list', { name: 'Recent Messages' });
  await expect(recent.getByRole('listitem')).toHaveCount(1);
  await expect(recent.getByRole('listitem').first()).toContainText('Text to 2 groups');
  await expect(recent.getByRole('listitem').first()).toContainText('Diwali offer');
  await expect(recent.getByRole('listitem').first()).toContainText('completed');
});

test('Quick Actions navigate', async ({ page, request }) => {
  const user = await createUser(request, { bulk: true });
  await signInByStorage(page, request, user.username, user.password);
  const targets: [string, RegExp][] = [
    ['Compose Message', /#\/compose$/],
    ['Add New Group', /#\/groups\/new$/],
    ['Import from Excel', /#\/bulkmessage$/],
    ['View Reports', /#\/reports$/],
  ];
  for (const [name, url] of targets) {
    await page.goto('/#/dashboard');
    await page.getByRole('link', { name: new RegExp(`^${name}`) }).click();
    await expect(page).toHaveURL(url);
  }
  await page.goto('/#/dashboard');
  await page.getByRole('link', { name: 'View All Jobs' }).click();
  await expect(page).toHaveURL(/#\/jobs$/);
});

test('the dashboard at 360 px wide', async ({ page, request }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  const user = await createUser(request, { credits: 100000 });
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/dashboard');
  await expectFigure(page, 'Account Balance', '1,00,000');
  await expect(card(page, 'Account Balance')).toBeInViewport({ ratio: 0 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(360);
});

test('the whole journey: the admin creates a user with credits, who links WhatsApp by QR and sees the groups counted', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const username = `j${Date.now().toString(36)}`;
  await page.clock.install();
  await loginViaUi(page, ADMIN.username, ADMIN.password);
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Manage Users' }).click();
  await page.getByRole('button', { name: 'Add User' }).click();
  const add = page.getByRole('dialog', { name: 'Add User' });
  await add.getByLabel('Name', { exact: true }).fill('Journey Person');
  await add.getByLabel('Username').fill(username);
  await add.getByLabel('Password', { exact: true }).fill('journey-pass-1');
  await add.getByLabel('Credits').fill('250000');
  await add.getByRole('button', { name: 'Create User' }).click();
  await expect(page.getByText(`User ${username} created`)).toBeVisible();
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();

  await loginViaUi(page, username, 'journey-pass-1');
  await expectFigure(page, 'Account Balance', '2,50,000');
  await expectFigure(page, 'Total Groups', '0');
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Instances' })
    .click();
  await page.getByRole('button', { name: 'ADD NEW' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add New Instance' });
  await dialog.getByLabel('Phone Number').fill('919811112222');
  await dialog.getByLabel('Session Name').fill('Journey phone');
  await dialog.getByRole('button', { name: 'Create Instance' }).click();
  await expectConnectedThenClosed(page, page.getByRole('dialog', { name: /Connect WhatsApp/ }));
  await expect(
    page
      .getByRole('table', { name: 'Instances' })
      .getByRole('row', { name: /Journey phone/ })
      .getByText('CONNECTED'),
  ).toBeVisible();

  const { token } = await apiLogin(request, username, 'journey-pass-1');
  const accounts = (await (
    await request.get('/api/sessions', { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { sessions: { sessionId: string }[] };
  const groups = (await (
    await request.get(`/api/groupsList/${accounts.sessions[0]!.sessionId}`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { count: number };
  expect(groups.count).toBeGreaterThan(0);
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Dashboard' })
    .click();
  await expectFigure(page, 'Total Groups', new Intl.NumberFormat('en-IN').format(groups.count));
});

test('Total Groups counts the groups of every linked account, each group once', async ({ page, request }) => {
  const user = await createUser(request, { credits: 10, multi: true });
  const first = await createLinkedAccount(request, user, {
    phoneNumber: '919811100001',
    sessionName: 'Shop',
  });
  const second = await createLinkedAccount(request, user, {
    phoneNumber: '919811100002',
    sessionName: 'Home',
  });
  const { token } = await apiLogin(request, user.username, user.password);
  const groupIds = new Set<string>();
  const counts: number[] = [];
  for (const accountId of [first, second]) {
    const res = await request.get(`/api/groupsList/${accountId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { count: number; groups: { groupId: string }[] };
    counts.push(body.count);
    for (const g of body.groups) groupIds.add(g.groupId);
  }
  expect(counts.every((n) => n > 0)).toBe(true);
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/dashboard');
  // Before: the first account's count only.
  await expectFigure(page, 'Total Groups', new Intl.NumberFormat('en-IN').format(groupIds.size));
  expect(groupIds.size).toBeGreaterThan(Math.max(...counts));
});
