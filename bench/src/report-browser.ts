/**
 * The MIS Report and Message Jobs as a user meets them with 1,00,000 jobs: Debian's Chromium
 * (headless, 1280×800, en-IN, Asia/Kolkata) opens the built web app served by the bench's own
 * server, already signed in (the session storage the login page writes). Times are from the
 * navigation to the first row of the table on screen; the Failed tab's badge is read from the
 * page, to be set against the database's count.
 */
import fs from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export type SignedIn = {
  token: string;
  user: {
    id: string;
    name: string;
    role: string;
    setting: { is_bulk_messaging_enabled: number; is_multisession_supported: number };
    credits: { user_credits: number; admin_users: unknown[] };
  };
};

export type ReportInBrowser = {
  /** Navigation to the first report row, a cold load (nothing cached) then warm ones. */
  reportFirstRowMs: number[];
  /** Navigation to the first row of Message Jobs. */
  jobsFirstRowMs: number[];
  /** What the Failed tab's badge says (digits only). */
  failedTabCount: number;
};

async function signIn(page: Page, s: SignedIn): Promise<void> {
  await page.addInitScript((s) => {
    const store = window.sessionStorage;
    store.setItem('token', s.token);
    store.setItem('userRole', s.user.role);
    store.setItem('userId', s.user.id);
    store.setItem('loggedInUserName', s.user.name);
    store.setItem('userCreditsAvailable', String(s.user.credits.user_credits));
    store.setItem('isBulkMessagingEnabled', String(s.user.setting.is_bulk_messaging_enabled));
    store.setItem('isMultiSessionEnabled', String(s.user.setting.is_multisession_supported));
    store.setItem('AdminUsers', JSON.stringify(s.user.credits.admin_users));
  }, s);
}

/**
 * Milliseconds from navigating to `url` until `rowSelector` is visible. The page looks for the row
 * at every animation frame: Playwright's own wait (locator.waitFor) looks at 0, 20, 70, 170 and
 * 270 ms, then every 500 ms, so a row drawn at 950 ms was counted at about 1,270 ms.
 */
async function firstRow(page: Page, url: string, rowSelector: string): Promise<number> {
  // From a blank page each time: a whole load of the app (its files cached after the first), not
  // a hash change inside an app that already holds the rows.
  await page.goto('about:blank');
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(
    (selector) => {
      const row = document.querySelector(selector);
      return row !== null && row.getClientRects().length > 0 && row.checkVisibility();
    },
    rowSelector,
    { polling: 'raf', timeout: 60_000 },
  );
  const ms = performance.now() - t0;
  // As before: the row Playwright calls visible (it must agree with the check above).
  await page.locator(rowSelector).first().waitFor({ state: 'visible', timeout: 5_000 });
  return ms;
}

export async function reportInBrowser(
  address: string,
  signedIn: SignedIn,
  screenshots?: { report: string; failedTab: string },
): Promise<ReportInBrowser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-IN',
      timezoneId: 'Asia/Kolkata',
    });
    const page = await context.newPage();
    // BENCH_CPU_SLOWDOWN=N: the page's main thread runs N times slower (Chromium's own throttling,
    // as DevTools' "CPU: N× slowdown"), to see the times of a slower computer than this one.
    const slowdown = Number(process.env.BENCH_CPU_SLOWDOWN ?? 1);
    if (slowdown > 1) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: slowdown });
    }
    await signIn(page, signedIn);
    const reportRow = 'table[aria-label="MIS Report jobs"] tbody tr[data-index]';
    const reportFirstRowMs: number[] = [];
    for (let i = 0; i < 6; i++) {
      // BENCH_TRACE=<file>: a Chromium performance trace of the last warm load, for DevTools.
      const trace = i === 5 ? process.env.BENCH_TRACE : undefined;
      if (trace) await browser.startTracing(page, { path: trace });
      reportFirstRowMs.push(await firstRow(page, `${address}/#/reports`, reportRow));
      if (trace) await browser.stopTracing();
    }
    if (screenshots) await page.screenshot({ path: screenshots.report });
    const jobsRow = 'table[aria-label="Message jobs"] tbody tr';
    const jobsFirstRowMs: number[] = [];
    for (let i = 0; i < 6; i++) jobsFirstRowMs.push(await firstRow(page, `${address}/#/jobs`, jobsRow));
    const failedTab = page.getByRole('tab', { name: /^Failed/ });
    await failedTab.click();
    const badge = (await failedTab.textContent()) ?? '';
    await page.locator(jobsRow).first().waitFor({ state: 'visible' });
    if (screenshots) await page.screenshot({ path: screenshots.failedTab });
    return {
      reportFirstRowMs,
      jobsFirstRowMs,
      failedTabCount: Number(badge.replace(/\D/g, '')),
    };
  } finally {
    await browser?.close();
  }
}
