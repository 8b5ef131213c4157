import fs from 'node:fs';
import Papa from 'papaparse';
import { expect, signInByStorage, type TestUser, test } from '../fixtures.ts';
import { type Job, jobsOf } from './support/jobs.ts';
import { interceptPrint, printed, printedTable } from './support/print.ts';
import {
  ALL_JOBS,
  LONG_TEXT,
  POLL,
  REPORT_HEADERS,
  reportUser,
  SHORT_TEXT,
  TRICKY_TEXT,
  TZ,
} from './support/reports.ts';

test.use({ timezoneId: TZ });

/** mis_report.csv's columns, and the print view's: the spec's, then status, receipts, the whole content and Meta's charge. */
const EXPORT_HEADERS = [
  ...REPORT_HEADERS,
  'Status',
  'Delivered',
  'Read',
  'Replied',
  'Undelivered',
  'Content',
  'Meta Category',
  'Meta Cost (INR)',
];

/** The number of the account the report's jobs are sent from. */
const PHONE = '919833300004';

test.describe('MIS Report exports', () => {
  let user: TestUser;
  let token: string;
  let jobs: Job[];
  let ids: Record<string, string>;

  test.beforeAll(async ({ request }) => {
    ({ user, token, ids, jobs } = await reportUser(request, PHONE));
  });

  test('mis_report.csv has the spec columns, one row per job, compared column by column', async ({
    page,
    request,
  }) => {
    await signInByStorage(page, request, user.username, user.password);
    // The receipts' figures are in the file: wait for the simulator's (1 s delivered, 5 s read;
    // the report's number, 919822200002, reads its messages: network.ts readsMessages), until every
    // sent message is read, not a fixed 5.5 s.
    await expect
      .poll(
        async () =>
          (await jobsOf(request, token, user.id)).every(
            (j) => j.results.delivered === j.results.success && j.delivery.read === j.results.success,
          ),
        { timeout: 20_000 },
      )
      .toBe(true);
    const jobs = await jobsOf(request, token, user.id);
    await page.goto('/#/reports');
    await expect(page.getByText(ALL_JOBS)).toBeVisible();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('mis_report.csv');
    const text = fs.readFileSync((await download.path())!, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const parsed = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const [header, ...lines] = parsed.data;
    // The spec's columns first, then status, receipts and the whole content.
    expect(header).toEqual(EXPORT_HEADERS);
    expect(lines).toHaveLength(jobs.length + 1);
    const rows = lines.slice(0, -1);
    const sum = (f: (j: Job) => number) => String(jobs.reduce((n, j) => n + f(j), 0));
    // Receipts and replies in the totals line with their rate of the sent messages: '12 (100.0%)'.
    const withRate = (f: (j: Job) => number) =>
      `${sum(f)} (${((Number(sum(f)) * 100) / Number(sum((j) => j.results.success))).toFixed(1)}%)`;
    expect(lines.at(-1)).toEqual([
      'Total',
      '',
      sum((j) => j.progress.total),
      sum((j) => j.results.success),
      sum((j) => j.results.failed),
      '',
      `${jobs.length} jobs`,
      '',
      '',
      withRate((j) => j.delivery.delivered),
      withRate((j) => j.delivery.read),
      withRate((j) => j.delivery.replied),
      withRate((j) => j.delivery.undelivered),
      '',
      '',
      '0.0000',
    ]);
    const created = await page.evaluate(
      (list) => Object.fromEntries(list.map((j) => [j.id, new Date(j.createdAt).toLocaleString('en-IN')])),
      jobs,
    );
    const preview: Record<string, string> = {
      [ids.long!]: 'Diwali sale sta...',
      [ids.short!]: SHORT_TEXT,
      [ids.poll!]: 'Which day suits...',
      [ids.image!]: 'A tiny picture',
      [ids.corrupt!]: '',
      [ids.pdf!]: '',
      [ids.audio!]: '',
      [ids.tricky!]: `'=SUM(A1) "q", <...`,
    };
    const full: Record<string, string> = {
      [ids.long!]: LONG_TEXT,
      [ids.short!]: SHORT_TEXT,
      [ids.poll!]: POLL.pollName,
      [ids.image!]: 'A tiny picture',
      [ids.corrupt!]: '',
      [ids.pdf!]: '',
      [ids.audio!]: '',
      [ids.tricky!]: `'${TRICKY_TEXT}`,
    };
    for (const job of jobs) {
      const row = rows.find((r) => r[0] === job.id);
      expect(row, job.id).toEqual([
        job.id,
        PHONE,
        String(job.progress.total),
        String(job.results.success),
        String(job.results.failed),
        created[job.id],
        job.messageType,
        preview[job.id],
        // The word Message Jobs shows: a failed job that sent some is 'Partly sent'.
        job.status === 'failed' && job.results.success > 0 ? 'Partly sent' : job.status,
        String(job.delivery.delivered),
        String(job.delivery.read),
        String(job.delivery.replied),
        String(job.delivery.undelivered),
        full[job.id],
        // Not Cloud API template jobs: no category, no charge.
        '',
        '',
      ]);
    }
  });

  test('the print view lists the jobs escaped, prints by itself and closes about 500 ms later', async ({
    page,
    request,
  }) => {
    await interceptPrint(page);
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/reports');
    await expect(page.getByText(ALL_JOBS)).toBeVisible();
    const opened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'PDF/Print' }).click();
    const view = await opened;
    await expect.poll(async () => (await printed(page)).length).toBe(1);
    await expect.poll(() => view.isClosed()).toBe(true);
    const [record] = await printed(page);
    expect(record!.closedAt! - record!.printedAt).toBeGreaterThanOrEqual(450);
    expect(record!.closedAt! - record!.printedAt).toBeLessThan(2000);
    const table = await printedTable(page, record!.html);
    expect(table.title).toBe('MIS Report');
    expect(table.markup).toBe(0);
    // What the CSV has: its columns, each job's status, receipts and whole content, and the totals line.
    expect(table.rows[0]).toEqual(EXPORT_HEADERS);
    const tricky = table.rows.find((r) => r[0] === ids.tricky)!;
    expect(tricky[7]).toBe('=SUM(A1) "q", <...');
    expect(tricky[13]).toBe(TRICKY_TEXT);
    const shown = await jobsOf(request, token, user.id);
    for (const job of shown) expect(table.rows.find((r) => r[0] === job.id)?.[8], job.id).toBe(job.status);
    expect(table.rows.find((r) => r[0] === ids.long)?.[13]).toBe(LONG_TEXT);
    expect(table.rows.at(-1)!.slice(0, 5)).toEqual([
      'Total',
      '',
      String(shown.reduce((n, j) => n + j.progress.total, 0)),
      String(shown.reduce((n, j) => n + j.results.success, 0)),
      String(shown.reduce((n, j) => n + j.results.failed, 0)),
    ]);
    expect(
      table.rows
        .slice(1, -1)
        .map((r) => r[0])
        .sort(),
    ).toEqual(jobs.map((j) => j.id).sort());
  });
});
