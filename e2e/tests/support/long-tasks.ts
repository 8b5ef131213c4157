import type { Page } from '@playwright/test';

/**
 * Watches the page's main thread with a PerformanceObserver of long tasks (Chromium reports every
 * task over 50 ms, with its duration). Returns a reader of the durations seen since the last
 * read, in ms; reading clears them.
 */
export async function observeLongTasks(page: Page): Promise<() => Promise<number[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: false });
  });
  return () =>
    page.evaluate(() => {
      const w = window as unknown as { __longTasks: number[] };
      const tasks = w.__longTasks;
      w.__longTasks = [];
      return tasks;
    });
}
