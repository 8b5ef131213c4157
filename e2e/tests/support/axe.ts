import type { Locator, Page } from '@playwright/test';
import axe, { type AxeResults } from 'axe-core';
import { expect } from '../../fixtures.ts';

/** WCAG 2.1 A and AA: the rules every axe check of the browser suite runs. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * axe-core's rules of `tags` run on the whole page as it is now, as AxeBuilder's `analyze()`
 * runs them (the same axe-core, whose source it injects too), without its per-call costs: it
 * injected the 1.5 MB source again on every call and opened a blank tab to merge the results of
 * frames, 0.7–1.2 s a call where the rules took 0.1 s. The console has no frames: the page is the
 * whole of what axe sees either way. The source goes in once per document (a route change keeps it).
 */
export async function axeAnalyze(page: Page, tags: string[] = WCAG_TAGS): Promise<AxeResults> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(
    (values) =>
      (window as unknown as { axe: typeof axe }).axe.run(document, { runOnly: { type: 'tag', values } }),
    tags,
  );
}

/** The serious and critical violations of the page as it is now, one line each (id and first nodes). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await axeAnalyze(page);
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.html.slice(0, 120)).join('; ')}`);
}

/** Waits until `locator` is drawn at full opacity, its own and its ancestors' (fades ended). */
export async function expectFullyDrawn(locator: Locator): Promise<void> {
  await expect
    .poll(
      () =>
        locator.evaluate((el) => {
          let opacity = 1;
          for (let e: Element | null = el; e; e = e.parentElement)
            opacity *= Number(getComputedStyle(e).opacity);
          return opacity;
        }),
      // Looked at every 50 ms: a fade takes about 200 ms (by default the third look was at 350 ms).
      { intervals: [50] },
    )
    .toBe(1);
}

/** The serious violations of the page once `dialog` has faded in (axe measured colours half-way otherwise). */
export async function violationsWithOpen(dialog: Locator): Promise<string[]> {
  await expect(dialog).toBeVisible();
  await expectFullyDrawn(dialog);
  return seriousViolations(dialog.page());
}
