import {
  ADMIN,
  apiLogin,
  createUser,
  expect,
  loginViaUi,
  signInAsAdmin,
  signInByStorage,
  test,
} from '../fixtures.ts';

const SIDEBAR = [
  'Dashboard',
  'Instances',
  'Group Messaging',
  'Bulk Messaging',
  'Message Jobs',
  'Inbox',
  'Contacts',
  'Groups',
  'Channels',
  'MIS Reports',
];

test.describe('guards', () => {
  for (const route of ['/dashboard', '/instances', '/jobs', '/users', '/adminDashboard', '/reports']) {
    test(`${route} without a token goes to /login`, async ({ page }) => {
      await page.goto(`/#${route}`);
      await expect(page).toHaveURL(/#\/login$/);
      await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
    });
  }

  test('an unknown route goes to /login', async ({ page }) => {
    await page.goto('/#/no/such/page');
    await expect(page).toHaveURL(/#\/login$/);
    await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  });

  test('sign up and forgot password are public', async ({ page }) => {
    await page.goto('/#/register');
    await expect(page.getByRole('heading', { name: 'Sign Up' })).toBeVisible();
    await page.goto('/#/forgot-password');
    await expect(page.getByRole('heading', { name: 'Forgot Password' })).toBeVisible();
  });

  test('a signed-in user opening /login goes home; a non-admin cannot open the admin pages', async ({
    page,
    request,
  }) => {
    const user = await createUser(request, { credits: 5 });
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/login');
    await expect(page).toHaveURL(/#\/dashboard$/);
    await page.goto('/#/adminDashboard');
    await expect(page).toHaveURL(/#\/dashboard$/);
    await page.goto('/#/users');
    await expect(page).toHaveURL(/#\/dashboard$/);
    await expect(page.getByRole('banner').getByText('Messaging Dashboard', { exact: true })).toBeVisible();
  });

  test('an ADMIN opening /login goes to /adminDashboard', async ({ page, request }) => {
    await signInAsAdmin(page, request);
    await page.goto('/#/login');
    await expect(page).toHaveURL(/#\/adminDashboard$/);
  });
});

test.describe('header and sidebar', () => {
  test('a user with bulk messaging sees the whole sidebar, the current route highlighted', async ({
    page,
    request,
  }) => {
    const user = await createUser(request, { bulk: true, name: 'Asha Rao' });
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/contacts');
    await expect(page.getByRole('banner').getByText('Messaging Dashboard', { exact: true })).toBeVisible();
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await expect(nav.getByRole('link')).toHaveText(SIDEBAR);
    await expect(nav.getByRole('link', { name: 'Contacts' })).toHaveAttribute('aria-current', 'page');
    await expect(nav.getByRole('link', { name: 'Dashboard' })).not.toHaveAttribute('aria-current', 'page');

    await nav.getByRole('link', { name: 'MIS Reports' }).click();
    await expect(page).toHaveURL(/#\/reports$/);
    await expect(nav.getByRole('link', { name: 'MIS Reports' })).toHaveAttribute('aria-current', 'page');
    await expect(nav.getByRole('link', { name: 'Contacts' })).not.toHaveAttribute('aria-current', 'page');

    // The avatar shows the initials; its menu names the user.
    const account = page.getByRole('button', { name: 'Account menu' });
    await expect(account).toHaveText('AR');
    await account.click();
    await expect(page.getByText('Logged in as')).toBeVisible();
    await expect(page.getByRole('menu').getByText('Asha Rao')).toBeVisible();
    await expect(page.getByRole('menuitem', { name: 'Manage Users' })).toHaveCount(0);
  });

  test('once the console has loaded, the pages of the sidebar open at once, without the page loader', async ({
    page,
    request,
  }) => {
    const user = await createUser(request, { bulk: true });
    await signInByStorage(page, request, user.username, user.password);
    // The console loads the other pages' chunks one after another while idle; the avatar menu's
    // Webhooks page is the last, so every sidebar page has loaded once it is asked for.
    const lastChunk = page.waitForResponse(/\/assets\/WebhooksPage-[^/]+\.js$/);
    await page.goto('/#/dashboard');
    await expect(page.getByRole('heading', { name: 'Dashboard', exact: true })).toBeVisible();
    await lastChunk;
    // Every page loader put on the page from now on is counted.
    await page.evaluate(() => {
      const seen = window as unknown as { loadersShown: number };
      seen.loadersShown = 0;
      new MutationObserver((changes) => {
        for (const change of changes)
          for (const node of change.addedNodes)
            if (
              node instanceof Element &&
              node.matches('*:has([aria-label="Loading page"]), [aria-label="Loading page"]')
            )
              seen.loadersShown++;
      }).observe(document.body, { childList: true, subtree: true });
    });
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    for (const [link, heading] of [
      ['Contacts', 'Contacts'],
      ['MIS Reports', 'MIS Report'],
      ['Message Jobs', 'Message Jobs'],
      ['Bulk Messaging', 'Send Bulk Message'],
    ] as const) {
      await nav.getByRole('link', { name: link }).click();
      await expect(page.getByRole('heading', { name: heading, exact: true })).toBeVisible();
    }
    expect(await page.evaluate(() => (window as unknown as { loadersShown: number }).loadersShown)).toBe(0);
  });

  test('Bulk Messaging is absent when the flag is off', async ({ page, request }) => {
    const user = await createUser(request, { bulk: false });
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/dashboard');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await expect(nav.getByRole('link')).toHaveText(SIDEBAR.filter((l) => l !== 'Bulk Messaging'));
  });

  test('ADMIN has no sidebar; the header menu links the Admin page and Manage Users', async ({
    page,
    request,
  }) => {
    await signInAsAdmin(page, request);
    await page.goto('/#/adminDashboard');
    await expect(page.getByRole('banner').getByText('Admin Dashboard', { exact: true })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main navigation' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Manage Users' }).click();
    await expect(page).toHaveURL(/#\/users$/);
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Admin page' }).click();
    await expect(page).toHaveURL(/#\/adminDashboard$/);
    // The Admin page links Manage Users itself (it was reachable only from the menu).
    await page.getByRole('link', { name: 'Manage Users' }).click();
    await expect(page).toHaveURL(/#\/users$/);
    await expect(page).toHaveTitle('Manage Users · WhatsApp Bulk Messaging Console');
  });

  test('at 360 px the sidebar hides behind a burger', async ({ page, request }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    const user = await createUser(request, { bulk: true });
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/dashboard');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await expect(nav.getByRole('link', { name: 'Instances' })).not.toBeInViewport();
    // The whole header title fits beside the burger and the avatar (it was cut to 'Messaging…').
    const title = page.getByRole('banner').getByText('Messaging Dashboard', { exact: true });
    expect(await title.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await expect(page).toHaveTitle('Dashboard · WhatsApp Bulk Messaging Console');
    // The first Tab stop skips the header and the sidebar to the page.
    await page.keyboard.press('Tab');
    const skip = page.getByRole('button', { name: 'Skip to content' });
    await expect(skip).toBeFocused();
    await skip.press('Enter');
    await expect(page.locator('#main-content')).toBeFocused();
    // The demo banner stays above the header, not over it: the burger and avatar take clicks.
    await expect(page.getByText('Demo mode: messages go to a simulated WhatsApp network')).toBeVisible();
    await page.getByRole('button', { name: 'Account menu' }).click();
    await expect(page.getByRole('menuitem', { name: 'Logout' })).toBeVisible();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await expect(nav.getByRole('link', { name: 'Instances' })).toBeInViewport();
    await nav.getByRole('link', { name: 'Instances' }).click();
    await expect(page).toHaveURL(/#\/instances$/);
    await expect(nav.getByRole('link', { name: 'Instances' })).not.toBeInViewport();
  });
});

test('logout revokes the token and clears the browser session', async ({ page, request }) => {
  const user = await createUser(request, { name: 'Logout Person' });
  await loginViaUi(page, user.username, user.password);
  await expect(page).toHaveURL(/#\/dashboard$/);
  const token = await page.evaluate(() => window.sessionStorage.getItem('token'));
  expect(token).toBeTruthy();

  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/#\/login$/);
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  expect(await page.evaluate(() => window.sessionStorage.length)).toBe(0);

  // The old token no longer works, and the guarded pages are closed again.
  const res = await request.get('/api/userDetails', { headers: { authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(401);
  await page.goto('/#/dashboard');
  await expect(page).toHaveURL(/#\/login$/);
  // A fresh sign-in still works.
  expect((await apiLogin(request, user.username, user.password)).token).toBeTruthy();
});

test('a 401 from the API clears the session and goes to /login', async ({ page, request }) => {
  const user = await createUser(request);
  const { token } = await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/dashboard');
  await expect(page.getByRole('banner').getByText('Messaging Dashboard', { exact: true })).toBeVisible();
  // The token is revoked behind the page's back: the next call answers 401.
  await request.post('/api/auth/logout', { headers: { authorization: `Bearer ${token}` } });
  // The dashboard reads the balance on arrival.
  await page.reload();
  await expect(page).toHaveURL(/#\/login$/);
  expect(await page.evaluate(() => window.sessionStorage.getItem('token'))).toBeNull();
});

test('a page whose chunk fails to load says so and offers Reload', async ({ page, request }) => {
  const user = await createUser(request);
  await signInByStorage(page, request, user.username, user.password);
  await page.route('**/assets/ContactsPage-*.js', (route) => route.abort('connectionreset'));
  await page.goto('/#/dashboard');
  await expect(page.getByRole('heading', { name: 'Dashboard', exact: true })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Contacts' })
    .click();
  await expect(page.getByRole('alert')).toContainText('This page could not be loaded');
  // The shell stays usable around the failed page.
  await expect(page.getByRole('banner').getByText('Messaging Dashboard', { exact: true })).toBeVisible();
  await page.unroute('**/assets/ContactsPage-*.js');
  await page.getByRole('button', { name: 'Reload' }).click();
  await expect(page.getByRole('heading', { name: 'Contacts', exact: true })).toBeVisible();
});
