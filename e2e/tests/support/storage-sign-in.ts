import type { APIRequestContext, Page } from '@playwright/test';
import { apiLogin } from '../../fixtures.ts';

type LoginUser = {
  id: string;
  name: string;
  role: string;
  setting: { is_bulk_messaging_enabled: number; is_multisession_supported: number };
  credits: { user_credits: number; admin_users: { user_id: string; username: string }[] };
};

/**
 * Signs in faster than the login page: stores the sign-in response in sessionStorage under the
 * keys of spec section 3 (as `storage.signIn` writes them) before the app's scripts run.
 * Returns the bearer token for API calls made by the test.
 */
export async function signInWithStorage(
  page: Page,
  request: APIRequestContext,
  creds: { username: string; password: string },
): Promise<string> {
  const { token, user } = await apiLogin(request, creds.username, creds.password);
  const u = user as unknown as LoginUser;
  const values: Record<string, string> = {
    token,
    userRole: u.role,
    userId: u.id,
    loggedInUserName: u.name,
    userCreditsAvailable: String(u.credits.user_credits),
    isBulkMessagingEnabled: String(u.setting.is_bulk_messaging_enabled),
    isMultiSessionEnabled: String(u.setting.is_multisession_supported),
    AdminUsers: JSON.stringify(u.credits.admin_users),
  };
  await page.addInitScript((v) => {
    // Only on the app's own pages (print views are about:blank windows).
    if (location.protocol !== 'http:') return;
    if (window.sessionStorage.getItem('token')) return;
    for (const [k, value] of Object.entries(v)) window.sessionStorage.setItem(k, value);
  }, values);
  return token;
}

export type PrintRecord = { html: string; printedAt: number; closedAt?: number };

/**
 * Replaces `print` (and wraps `close`) of every window the page opens, recording the document
 * that would have been printed and when the window closed.
 */
export async function interceptPrint(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __prints: PrintRecord[] };
    w.__prints = [];
    const realOpen = window.open.bind(window);
    window.open = (...args: Parameters<typeof window.open>) => {
      const view = realOpen(...args);
      if (view) {
        const record: PrintRecord = { html: '', printedAt: 0 };
        view.print = () => {
          record.html = view.document.documentElement.outerHTML;
          record.printedAt = performance.now();
          w.__prints.push(record);
        };
        const realClose = view.close.bind(view);
        view.close = () => {
          record.closedAt = performance.now();
          realClose();
        };
      }
      return view;
    };
  });
}

export async function printed(page: Page): Promise<PrintRecord[]> {
  return page.evaluate(() => (window as unknown as { __prints: PrintRecord[] }).__prints);
}

/** The cells of the print view's table, as text, header row first. */
export async function printedTable(
  page: Page,
  html: string,
): Promise<{ title: string; rows: string[][]; markup: number }> {
  return page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'text/html');
    const rows = [...doc.querySelectorAll('tr')].map((tr) =>
      [...tr.querySelectorAll('th,td')].map((c) => c.textContent ?? ''),
    );
    // Elements inside cells would mean the data was read as markup.
    const markup = doc.querySelectorAll('td *, th *, script').length;
    return { title: doc.querySelector('h1')?.textContent ?? '', rows, markup };
  }, html);
}
