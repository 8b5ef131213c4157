import { ADMIN, createLinkedAccount, createUser, expect, loginViaUi, test } from '../fixtures.ts';

test('the login page: fields, show/hide password, links', async ({ page }) => {
  await page.goto('/#/login');
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  const password = page.getByLabel('Password', { exact: true });
  await password.fill('secret-value');
  await expect(password).toHaveAttribute('type', 'password');
  await page.getByRole('button', { name: 'Show password' }).click();
  await expect(password).toHaveAttribute('type', 'text');
  await page.getByRole('button', { name: 'Hide password' }).click();
  await expect(password).toHaveAttribute('type', 'password');

  await page.getByRole('link', { name: /sign up/i }).click();
  await expect(page).toHaveURL(/#\/register$/);
  await page.goto('/#/login');
  await page.getByRole('link', { name: /forgot password/i }).click();
  await expect(page).toHaveURL(/#\/forgot-password$/);
});

test('username and password are required', async ({ page }) => {
  await page.goto('/#/login');
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByText('Username is required')).toBeVisible();
  await expect(page.getByText('Password is required')).toBeVisible();
  await expect(page).toHaveURL(/#\/login$/);
});

test("a wrong password shows the server's message and stays on /login", async ({ page, request }) => {
  const user = await createUser(request);
  await page.goto('/#/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password', { exact: true }).fill('not-the-password');
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid username or password');
  await expect(page.getByRole('button', { name: 'Login' })).toBeEnabled();
  await expect(page).toHaveURL(/#\/login$/);
  expect(await page.evaluate(() => window.sessionStorage.getItem('token'))).toBeNull();
});

test('a user with no sessions is told so and lands on /dashboard', async ({ page, request }) => {
  const user = await createUser(request, { credits: 42, bulk: false, name: 'Nila Das' });
  await page.goto('/#/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByRole('button', { name: 'Logging in...' })).toBeVisible();
  await expect(
    page.getByRole('status').filter({ hasText: 'No active sessions found. Redirecting to dashboard...' }),
  ).toBeVisible();
  await expect(page).toHaveURL(/#\/dashboard$/);
  await expect(page.getByRole('banner').getByText('Messaging Dashboard', { exact: true })).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  await expect(nav.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
  await expect(nav.getByRole('link', { name: 'Bulk Messaging' })).toHaveCount(0);

  // The user is stored under the spec's keys.
  const stored = await page.evaluate(() => ({
    role: sessionStorage.getItem('userRole'),
    name: sessionStorage.getItem('loggedInUserName'),
    credits: sessionStorage.getItem('userCreditsAvailable'),
    bulk: sessionStorage.getItem('isBulkMessagingEnabled'),
    multi: sessionStorage.getItem('isMultiSessionEnabled'),
    sessions: sessionStorage.getItem('sessionsArray'),
  }));
  expect(stored).toEqual({
    role: 'USER',
    name: 'Nila Das',
    credits: '42',
    bulk: '0',
    multi: '0',
    sessions: '[]',
  });
});

test('a user with a session has it restarted and lands on /dashboard', async ({ page, request }) => {
  const user = await createUser(request, { bulk: true });
  const accountId = await createLinkedAccount(request, user, { sessionName: 'Front desk' });
  const restarts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/restart')) restarts.push(new URL(r.url()).pathname);
  });
  await loginViaUi(page, user.username, user.password);
  await expect(page).toHaveURL(/#\/dashboard$/);
  expect(restarts).toEqual([`/api/session/${accountId}/restart`]);
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  await expect(nav.getByRole('link', { name: 'Bulk Messaging' })).toBeVisible();
  expect(await page.evaluate(() => JSON.parse(sessionStorage.getItem('sessionsArray') ?? '[]'))).toEqual([
    { sessionId: accountId, sessionName: 'Front desk' },
  ]);
});

test('the ADMIN lands on /adminDashboard with the admin header and no sidebar', async ({ page }) => {
  await loginViaUi(page, ADMIN.username, ADMIN.password);
  await expect(page).toHaveURL(/#\/adminDashboard$/);
  await expect(page.getByRole('banner').getByText('Admin Dashboard', { exact: true })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main navigation' })).toHaveCount(0);
});

test('sign up creates an account that can sign in', async ({ page }) => {
  const username = `s${Date.now().toString(36)}`;
  await page.goto('/#/login');
  await page.getByRole('link', { name: /sign up/i }).click();
  await page.getByLabel('Name', { exact: true }).fill('Kavya Nair');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill('kavya-pass-1');
  await page.getByLabel('Confirm password').fill('kavya-pass-2');
  await page.getByRole('button', { name: 'Sign Up' }).click();
  await expect(page.getByText('Passwords do not match')).toBeVisible();
  await page.getByLabel('Confirm password').fill('kavya-pass-1');
  await page.getByRole('button', { name: 'Sign Up' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Account created' })).toBeVisible();
  await page.getByRole('link', { name: 'Go to login' }).click();
  await loginViaUi(page, username, 'kavya-pass-1');
  await expect(page).toHaveURL(/#\/dashboard$/);
  // A new account starts with no credits and no bulk messaging (docs/decisions.md, Sign-up and password resets).
  await expect(page.getByRole('group', { name: 'Account Balance' })).toHaveText('Account Balance0');
  await expect(
    page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Bulk Messaging' }),
  ).toHaveCount(0);
});
