import type { Page } from '@playwright/test';
import { expect } from '../../fixtures.ts';

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

/** With nothing listed, CSV and PDF/Print each say so in an alert (and nothing is exported). */
export async function expectNothingToExport(page: Page): Promise<void> {
  const alerts: string[] = [];
  page.on('dialog', async (d) => {
    alerts.push(d.message());
    await d.dismiss();
  });
  await page.getByRole('button', { name: 'CSV' }).click();
  await page.getByRole('button', { name: 'PDF/Print' }).click();
  await expect.poll(() => alerts).toEqual(['No data to export', 'No data to print']);
}
