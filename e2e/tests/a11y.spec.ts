import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import {
  ADMIN,
  apiLogin,
  createLinkedSession,
  createUser,
  expect,
  signInByStorage,
  type TestUser,
  test,
} from '../fixtures.ts';
import { finishedJobs, sendIndividual } from './support/jobs.ts';

/**
 * WCAG 2.1 AA (issue 18, items 8-9): axe-core on every page, signed in as each role, at the
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
  '/instances',
  '/compose',
  '/bulkmessage',
  '/jobs',
  '/contacts',
  '/groups',
  '/reports',
  '/api-keys',
  '/webhooks',
];
const ADMIN_PAGES = ['/adminDashboard', '/users'];

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
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
 * Each page's H1s (issue 18, item 8: every page had the header's 'Messaging Dashboard' as its
 * only H1): one per page, its own words.
 */
function expectOneOwnHeadingOne(h1s: Record<string, string[]>): void {
  for (const [path, texts] of Object.entries(h1s)) expect(texts, `H1s of ${path}`).toHaveLength(1);
  const texts = Object.values(h1s).map((t) => t[0]);
  expect(new Set(texts).size, texts.join(', ')).toBe(texts.length);
}

/** Opens a page and waits until it has drawn its content (its loaders gone). */
async function open(page: Page, path: string): Promise<void> {
  await page.goto(`/#${path}`);
  await expect(page.locator('main, [role="main"]').first()).toBeVisible();
  await expect(page.locator('.mantine-Loader-root')).toHaveCount(0, { timeout: 15_000 });
}

test.describe('accessibility (axe, WCAG 2.1 AA)', () => {
  let user: TestUser;

  test.beforeAll(async ({ request }) => {
    user = await createUser(request, { credits: 50, bulk: true, multi: true, name: 'Asha Rao' });
    const session = await createLinkedSession(request, user, { phoneNumber: '919844455501' });
    const { token } = await apiLogin(request, user.username, user.password);
    await sendIndividual(request, token, session, { content: 'Diwali offer: 20% off this week' });
    await finishedJobs(request, token, user.id);
  });

  for (const size of SIZES) {
    test.describe(size.name, () => {
      test.use({ viewport: { width: size.width, height: size.height } });

      test('public pages', async ({ page }) => {
        const found: Record<string, string[]> = {};
        for (const path of PUBLIC) {
          await open(page, path);
          const v = await seriousViolations(page);
          if (v.length) found[path] = v;
        }
        expect(found).toEqual({});
      });

      test('a user’s pages', async ({ page, request }) => {
        await signInByStorage(page, request, user.username, user.password);
        const found: Record<string, string[]> = {};
        const h1s: Record<string, string[]> = {};
        for (const path of USER) {
          await open(page, path);
          const v = await seriousViolations(page);
          if (v.length) found[path] = v;
          h1s[path] = await page.locator('h1').allTextContents();
        }
        expect(found).toEqual({});
        expectOneOwnHeadingOne(h1s);
      });

      test('an admin’s pages', async ({ page, request }) => {
        await signInByStorage(page, request, ADMIN.username, ADMIN.password);
        const found: Record<string, string[]> = {};
        const h1s: Record<string, string[]> = {};
        for (const path of ADMIN_PAGES) {
          await open(page, path);
          const v = await seriousViolations(page);
          if (v.length) found[path] = v;
          h1s[path] = await page.locator('h1').allTextContents();
        }
        expect(found).toEqual({});
        expectOneOwnHeadingOne(h1s);
      });
    });
  }
});
