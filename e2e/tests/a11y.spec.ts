import type { Page } from '@playwright/test';
import { expect, linkedUser, signInAsAdmin, signInByStorage, type TestUser, test } from '../fixtures.ts';
import { axeAnalyze, expectFullyDrawn } from './support/axe.ts';
import { connectCloudAccount } from './support/cloud.ts';
import { importContactList } from './support/contacts.ts';
import { finishedJobs, sendIndividual } from './support/jobs.ts';

/**
 * WCAG 2.1 AA: axe-core on every page, signed in as each role, at the
 * desktop and the phone size. A serious or critical violation fails the test, named with the
 * elements it was found on.
 */
const SIZES = [
  { name: '1280×800', width: 1280, height: 800 },
  { name: '360×740', width: 360, height: 740 },
];

const PUBLIC = ['/login', '/register', '/forgot-password'];
const USER = [
  '/dashboard',
  '/password',
  '/instances',
  '/compose',
  '/bulkmessage',
  '/jobs',
  '/inbox',
  '/contacts',
  '/groups',
  '/groups/new',
  '/channels',
  '/reports',
  '/api-keys',
  '/webhooks',
];
const ADMIN_PAGES = ['/adminDashboard', '/users'];

/**
 * Every dialog a user opens: the page it is on and how it is opened. Each is checked
 * open, at both sizes.
 */
type DialogCase = { name: string; path: string; open: (page: Page) => Promise<void> };

/** Group Messaging with a recipient (a group that everyone may write to) and a message: ready to send or schedule. */
async function readyToSend(page: Page): Promise<void> {
  await page
    .getByRole('table', { name: 'Select Groups' })
    .getByRole('checkbox', { name: /^Select (?!Announcements)/ })
    .first()
    .check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello');
}
const USER_DIALOGS: DialogCase[] = [
  {
    name: 'Add New Instance',
    path: '/instances',
    open: async (page) => page.getByRole('button', { name: 'ADD NEW' }).click(),
  },
  {
    name: 'Account settings',
    path: '/instances',
    open: async (page) =>
      page
        .getByRole('button', { name: /^Account settings / })
        .first()
        .click(),
  },
  {
    name: 'Schedule Message, calendar open',
    path: '/compose',
    open: async (page) => {
      await readyToSend(page);
      await page.getByRole('button', { name: 'Schedule Message' }).click();
      await page.getByRole('button', { name: 'Pick the day in a calendar' }).click();
      await expect(page.locator('[data-dates-dropdown]')).toBeVisible();
      // The calendar fades in as the dialog does (axe read a weekend's red half-way, 4.41:1).
      await expectFullyDrawn(page.locator('[data-dates-dropdown]'));
    },
  },
  {
    name: 'Job Details',
    path: '/jobs',
    open: async (page) => {
      await page.getByRole('tab', { name: /^All/ }).click();
      await page.getByRole('button', { name: 'View', exact: true }).first().click();
      await expect(page.getByRole('table', { name: 'Recipients' })).toBeVisible();
    },
  },
  {
    name: 'Message Content',
    path: '/reports',
    open: async (page) => page.getByRole('button', { name: 'Show more' }).first().click(),
  },
  {
    name: 'Import contacts, a file chosen',
    path: '/contacts',
    open: async (page) => {
      await page.getByRole('button', { name: 'Import contacts' }).click();
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('dialog').getByRole('button', { name: /File/ }).first().click();
      await (await chooser).setFiles({
        name: 'people.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('Name,Phone\nAsha,919800011111\n'),
      });
      await expect(page.getByRole('dialog').getByText('First 1 rows of people.csv.')).toBeVisible();
    },
  },
  {
    name: 'Group Details',
    path: '/groups',
    open: async (page) => {
      // A table at 1280, cards at 360: the group's name is read from its QR button, then its name
      // (a button in either layout) opens the panel.
      const qr = page
        .getByRole('main')
        .getByRole('button', { name: /^Enlarge the QR code of / })
        .first();
      const name = ((await qr.getAttribute('aria-label')) ?? '').replace('Enlarge the QR code of ', '');
      await page.getByRole('main').getByRole('button', { name, exact: true }).first().click();
    },
  },
  {
    name: 'Terminate',
    path: '/instances',
    open: async (page) =>
      page
        .getByRole('button', { name: /^Terminate / })
        .first()
        .click(),
  },
  {
    name: 'Confirm Delete',
    path: '/jobs',
    open: async (page) => {
      await page.getByRole('tab', { name: /^All/ }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).first().click();
    },
  },
  {
    name: 'Edit job',
    path: '/jobs',
    open: async (page) => {
      await page.getByRole('tab', { name: /^All/ }).click();
      await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
      await expect(page.getByRole('dialog').getByLabel('Phone numbers (one a line)')).toBeVisible();
    },
  },
  {
    name: 'Delete a contact list',
    path: '/contacts',
    open: async (page) => page.getByRole('button', { name: 'Delete Regulars' }).first().click(),
  },
  {
    name: 'Group QR code',
    path: '/groups',
    open: async (page) =>
      page
        .getByRole('main')
        .getByRole('button', { name: /^Enlarge the QR code of / })
        .first()
        .click(),
  },
  {
    name: 'Create channel',
    path: '/channels',
    open: async (page) => page.getByRole('button', { name: 'Create channel' }).click(),
  },
  {
    name: 'Add channel',
    path: '/channels',
    open: async (page) => page.getByRole('button', { name: 'Add channel' }).click(),
  },
  {
    name: 'Connect Cloud API',
    path: '/instances',
    open: async (page) => page.getByRole('button', { name: 'Connect Cloud API' }).click(),
  },
  {
    name: 'Confirm send',
    path: '/compose',
    open: async (page) => {
      await readyToSend(page);
      await page.getByRole('button', { name: 'Send Now' }).click();
      await expect(page.getByRole('dialog', { name: 'Confirm send' })).toBeVisible();
    },
  },
  {
    name: 'Two-factor sign-in',
    path: '/dashboard',
    open: async (page) => {
      await page.getByRole('button', { name: /Account menu/ }).click();
      await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
    },
  },
];
/**
 * States of a page that are not dialogs (a result line, a preview, a restored draft, an open
 * picker): opened, then measured as the page is.
 */
const USER_STATES: DialogCase[] = [
  {
    name: 'Import contacts, nothing chosen yet',
    path: '/contacts',
    open: async (page) => {
      await page.getByRole('button', { name: 'Import contacts' }).click();
      await expectFullyDrawn(page.getByRole('dialog'));
    },
  },
  {
    name: 'Opt-out result',
    path: '/contacts',
    open: async (page) => {
      await page.getByRole('textbox', { name: 'Numbers to opt out' }).fill('98000 33333');
      await page.getByRole('button', { name: 'Add to opt-outs' }).click();
      await expect(page.getByRole('status', { name: 'Opt-out result' })).toBeVisible();
    },
  },
  {
    name: 'Status preview on each colour',
    path: '/bulkmessage',
    open: async (page) => {
      await page.getByRole('tab', { name: 'Status' }).click();
      await page.getByRole('textbox', { name: 'Status text' }).fill('Fresh mangoes today');
      await expect(page.getByRole('img', { name: 'Status preview' })).toBeVisible();
    },
  },
  {
    name: 'Group Messaging, a restored draft and the phone picker open',
    path: '/compose',
    open: async (page) => {
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello again');
      // Another page of the app and back (at 360 px the sidebar is a drawer: the address is the
      // same at both sizes).
      await page.evaluate(() => {
        window.location.hash = '#/jobs';
      });
      await expect(page.getByRole('heading', { name: /Message Jobs/ })).toBeVisible();
      await page.goBack();
      await expect(page.getByRole('status', { name: 'Draft restored' })).toBeVisible();
      await page.getByRole('combobox', { name: 'Phone number' }).click();
      await expect(page.getByRole('listbox')).toBeVisible();
    },
  },
];
/**
 * A made group's answer, the account menu and the navigation (a drawer at 360 px, last: it covers
 * the page), each measured open; the menu and the drawer share one load of the Dashboard.
 */
const USER_MENUS: DialogCase[] = [
  {
    name: 'Add New Group, its answer',
    path: '/groups/new',
    open: async (page) => {
      await page.getByLabel('Group name').fill('Shop helpers');
      await page.getByLabel("Members' phone numbers (one a line)").fill('919800055501\n919800055502');
      await page.getByRole('button', { name: 'Create group' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Group created' })).toBeVisible();
      await page.getByRole('combobox', { name: 'Members from a contact list' }).click();
      await expect(page.getByRole('listbox')).toBeVisible();
    },
  },
  {
    name: 'Account menu open',
    path: '/dashboard',
    open: async (page) => {
      await page.getByRole('button', { name: /Account menu/ }).click();
      await expect(page.getByRole('menu')).toBeVisible();
      await expectFullyDrawn(page.getByRole('menu'));
    },
  },
  {
    name: 'Navigation open (the drawer at 360 px)',
    path: '/dashboard',
    open: async (page) => {
      await page.keyboard.press('Escape');
      await expect(page.getByRole('menu')).toHaveCount(0);
      const burger = page.getByRole('button', { name: 'Open navigation' });
      if (await burger.isVisible()) await burger.click();
      await expect(page.getByRole('navigation', { name: 'Main navigation' })).toBeVisible();
      await expectFullyDrawn(page.getByRole('navigation', { name: 'Main navigation' }));
    },
  },
];
const ADMIN_DIALOGS: DialogCase[] = [
  {
    name: 'Add User',
    path: '/users',
    open: async (page) => page.getByRole('button', { name: 'Add User' }).click(),
  },
  {
    name: 'Edit user',
    path: '/users',
    open: async (page) =>
      page
        .getByRole('button', { name: /^Edit / })
        .first()
        .click(),
  },
  {
    name: 'Credits',
    path: '/users',
    open: async (page) =>
      page
        .getByRole('button', { name: /^Credits of / })
        .first()
        .click(),
  },
  {
    name: 'Ledger',
    path: '/users',
    open: async (page) =>
      page
        .getByRole('button', { name: /^Ledger of / })
        .first()
        .click(),
  },
];

async function dialogViolations(
  page: Page,
  cases: DialogCase[],
  dialogs = true,
): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  let shown: string | null = null;
  for (const c of cases) {
    // A case on the page already shown (a menu, a drawer) reuses its load.
    if (dialogs || c.path !== shown || !page.url().endsWith(`#${c.path}`)) await open(page, c.path);
    shown = c.path;
    await c.open(page);
    if (dialogs) {
      await expect(page.getByRole('dialog').first()).toBeVisible();
      // Mantine fades a dialog in: axe measured the colours half-way (grey on grey).
      await expectFullyDrawn(page.getByRole('dialog').first());
    }
    const v = await seriousViolations(page);
    if (v.length) found[c.name] = v;
    if (c.path === '/bulkmessage' && c.name.startsWith('Status preview')) {
      // Every swatch the tab offers, with the white text on it.
      for (const swatch of await page.getByRole('button', { name: /^Colour #/ }).all()) {
        await swatch.click();
        const more = await seriousViolations(page);
        if (more.length) found[`${c.name}: ${await swatch.getAttribute('aria-label')}`] = more;
      }
    }
    // Closed before the next one (an open popover closes first, then its dialog): Escape again
    // while one is still open, each time it has had half a second to go.
    await expect(async () => {
      if ((await page.getByRole('dialog').count()) > 0) await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0, { timeout: 500 });
    }).toPass({ timeout: 15_000, intervals: [0] });
  }
  return found;
}

/** The contrast of the text on a control as drawn now (under the pointer, for a hovered one). */
async function drawnContrast(page: Page, selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
      const lum = ([r, g, b]: number[]) => {
        const f = (v: number) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
      };
      const css = getComputedStyle(el);
      const [a, b] = [lum(rgb(css.color)), lum(rgb(css.backgroundColor))].sort((x, y) => y - x) as [
        number,
        number,
      ];
      return (a + 0.05) / (b + 0.05);
    });
}

/**
 * The serious violations that last: a page found with some is measured again a second later, so
 * that one drawn mid-way (a fade, a notice leaving, a row moving in on a busy machine) is not
 * taken for the page's; a real one is there both times.
 */
async function seriousViolations(page: Page): Promise<string[]> {
  const first = await measuredViolations(page);
  if (first.length === 0) return first;
  await page.waitForTimeout(1_000);
  return measuredViolations(page);
}

async function measuredViolations(page: Page): Promise<string[]> {
  const result = await axeAnalyze(page);
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 4)
          .map(
            (n) =>
              `${n.html.slice(0, 160)}${n.failureSummary ? ` [${n.failureSummary.split('\n').slice(1, 2).join('').trim()}]` : ''}`,
          )
          .join('; ')}`,
    );
}

/**
 * Each page's H1s (every page had the header's 'Messaging Dashboard' as its
 * only H1): one per page, its own words.
 */
function expectOneOwnHeadingOne(h1s: Record<string, string[]>): void {
  for (const [path, texts] of Object.entries(h1s)) expect(texts, `H1s of ${path}`).toHaveLength(1);
  const texts = Object.values(h1s).map((t) => t[0]);
  expect(new Set(texts).size, texts.join(', ')).toBe(texts.length);
}

/** Each of `paths` opened and measured: no serious violation, and (signed in) one H1 of its own each. */
async function expectPagesClean(page: Page, paths: readonly string[], headings = true): Promise<void> {
  const found: Record<string, string[]> = {};
  const h1s: Record<string, string[]> = {};
  for (const path of paths) {
    await open(page, path);
    const v = await seriousViolations(page);
    if (v.length) found[path] = v;
    h1s[path] = await page.locator('h1').allTextContents();
  }
  expect(found).toEqual({});
  if (headings) expectOneOwnHeadingOne(h1s);
}

/** Opens a page and waits until it has drawn its content (its loaders gone). */
async function open(page: Page, path: string): Promise<void> {
  await page.goto(`/#${path}`);
  await expect(page.locator('main, [role="main"]').first()).toBeVisible();
  await expect(page.locator('.mantine-Loader-root')).toHaveCount(0, { timeout: 15_000 });
}

test.describe('accessibility (axe, WCAG 2.1 AA)', () => {
  // Send Now asks first (the 'Confirm send' dialog is measured; nothing is sent).
  test.use({ confirmSends: true });
  let user: TestUser;

  test.beforeAll(async ({ request }) => {
    const linked = await linkedUser(request, {
      credits: 50,
      bulk: true,
      multi: true,
      name: 'Asha Rao',
      phoneNumber: '919844455501',
    });
    ({ user } = linked);
    const { sessionId: account, token } = linked;
    // A Cloud API account beside it: its row on Instances (quality, limit, the webhook URL to copy).
    await connectCloudAccount(request, user);
    await sendIndividual(request, token, account, { content: 'Diwali offer: 20% off this week' });
    await finishedJobs(request, token, user.id);
    // A scheduled job: Edit and its dialog.
    await sendIndividual(request, token, account, {
      content: 'Weekend offer',
      scheduleTime: new Date(Date.now() + 6 * 3_600_000).toISOString(),
    });
    await importContactList(request, token, 'Regulars', 'Name,Phone\nRavi,919800022222\n');
  });

  for (const size of SIZES) {
    test.describe(size.name, () => {
      test.use({ viewport: { width: size.width, height: size.height } });

      test('public pages', async ({ page }) => {
        await expectPagesClean(page, PUBLIC, false);
      });

      test('a user’s pages', async ({ page, request }) => {
        // Every page of a user (Channels and Status made them more) opened and measured by axe:
        // over the minute on a busy machine (a second CI run), as the dialogs were.
        test.setTimeout(180_000);
        await signInByStorage(page, request, user.username, user.password);
        await expectPagesClean(page, USER);
      });

      test('a user’s dialogs, open', async ({ page, request }) => {
        // Nineteen dialogs, each opened from its page, drawn in full and measured: over a minute.
        test.setTimeout(240_000);
        await signInByStorage(page, request, user.username, user.password);
        expect(await dialogViolations(page, USER_DIALOGS)).toEqual({});
      });

      test('a user’s results, previews, drafts, pickers, menus and drawer', async ({ page, request }) => {
        test.setTimeout(180_000);
        await signInByStorage(page, request, user.username, user.password);
        expect(await dialogViolations(page, [...USER_STATES, ...USER_MENUS], false)).toEqual({});
      });

      test('an admin’s dialogs, open', async ({ page, request }) => {
        // Each dialog opened and measured by axe: a minute on a busy machine (a CI run).
        test.setTimeout(180_000);
        await signInAsAdmin(page, request);
        expect(await dialogViolations(page, ADMIN_DIALOGS)).toEqual({});
      });

      test('a filled button under the pointer keeps 4.5:1', async ({ page, request }) => {
        await signInByStorage(page, request, user.username, user.password);
        await open(page, '/instances');
        const button = page.getByRole('button', { name: 'ADD NEW' });
        await button.hover();
        await page.waitForTimeout(300);
        expect(await drawnContrast(page, 'button:hover')).toBeGreaterThanOrEqual(4.5);
      });

      test('an admin’s pages', async ({ page, request }) => {
        // Measured by axe page by page as the user's: 52 s of its 60 in a second CI run.
        test.setTimeout(180_000);
        await signInAsAdmin(page, request);
        await expectPagesClean(page, ADMIN_PAGES);
      });
    });
  }
});
