import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect } from '../../fixtures.ts';
import { uploadList } from './bulk.ts';

/** What the paying-customer specs share: pictures for the note, a CSV upload, sends by the API, a job's status, the phone's viewport. */

/** The phone size a paying customer uses. */
export const PHONE = { width: 360, height: 740 };

/** With SHOTS_DIR (and SHOTS_PHASE before | after), saves the picture of item `item` for the note. */
export async function shot(page: Page, item: number, fullPage = false) {
  const dir = process.env.SHOTS_DIR;
  if (dir)
    await page.screenshot({ path: `${dir}/${process.env.SHOTS_PHASE ?? 'after'}-${item}.png`, fullPage });
}

/** Uploads `content` on the bulk page as customers.csv. */
export const uploadCsv = (page: Page, content: string) => uploadList(page, 'customers.csv', content);

export async function sendApi(
  request: APIRequestContext,
  headers: Record<string, string>,
  accountId: string,
  body: object,
) {
  const res = await request.post(`/api/session/${accountId}/sendIndividualMessage`, { headers, data: body });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { jobId: string }).jobId;
}

export async function jobStatus(request: APIRequestContext, headers: Record<string, string>, jobId: string) {
  const res = await request.get(`/api/message-jobs-details/${jobId}?detailsLimit=0&media=0`, { headers });
  return ((await res.json()) as { job: { status: string; statusReason: string | null } }).job;
}

/** Numbers 9198000NNNNN, none ending in 0000 (the simulator's 'Not on WhatsApp'). */
export const numbers = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `9198001${String(from + i).padStart(5, '0')}`);

/** Neither the element nor anything around it scrolls sideways, and it lies inside the view. */
export async function expectNoSidewaysScroll(el: Locator, width: number) {
  const wide = await el.evaluate((node) => {
    const out: string[] = [];
    for (let n: Element | null = node; n; n = n.parentElement)
      if (n.scrollWidth > n.clientWidth + 1 && getComputedStyle(n).overflowX !== 'visible')
        out.push(`${n.tagName}.${n.className} ${n.scrollWidth} > ${n.clientWidth}`);
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) out.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
    return out;
  });
  expect(wide, 'boxes that scroll sideways').toEqual([]);
  const box = await el.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(width);
}

/** Sends by the API, waits until the job ends failed, and opens Message Jobs: the job's id and row. */
export async function failedJobRow(
  page: Page,
  request: APIRequestContext,
  u: { headers: Record<string, string>; sessionId: string },
  body: object,
  timeout: number,
) {
  const jobId = await sendApi(request, u.headers, u.sessionId, body);
  await expect
    .poll(async () => (await jobStatus(request, u.headers, jobId)).status, { timeout })
    .toBe('failed');
  await page.goto('/#/jobs');
  const row = page
    .getByRole('table', { name: 'Message jobs' })
    .getByRole('row')
    .filter({ hasText: jobId.slice(0, 8) });
  return { jobId, row };
}
