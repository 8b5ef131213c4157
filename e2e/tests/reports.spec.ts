import fs from 'node:fs';
import type { Page } from '@playwright/test';
import Papa from 'papaparse';
import {
  apiLogin,
  createLinkedSession,
  createUser,
  expect,
  signInByStorage,
  type TestUser,
  test,
} from '../fixtures.ts';
import { finishedJobs, type Job, jobsOf, PNG_1X1, sendIndividual, silentWav } from './support/jobs.ts';
import { interceptPrint, printed, printedTable } from './support/print.ts';

const TZ = 'Asia/Kolkata';
test.use({ timezoneId: TZ });

const LONG_TEXT = 'Diwali sale starts tomorrow at 10 am sharp';
const SHORT_TEXT = 'Hi there';
/** Starts like a formula and carries markup: harmless in the table, the CSV and the print view. */
const TRICKY_TEXT = '=SUM(A1) "q", <b>bold</b> & more';
const ALL_JOBS = '8 jobs';
const POLL = { pollName: 'Which day suits you best?', pollOptions: ['Monday', 'Friday', 'Sunday'] };
const REPORT_HEADERS = [
  'Job ID',
  'Phone Number',
  'Total Messages',
  'Success',
  'Failed',
  'Created Date',
  'Message Type',
  'Content Preview',
];

const report = (page: Page) => page.getByRole('table', { name: 'MIS Report jobs' });
/** A row by its job id, which the table shows cut to 8 characters (the full one as its title). */
const jobRow = (page: Page, id: string) =>
  report(page)
    .getByRole('row')
    .filter({ has: page.getByTitle(id) });
const popup = (page: Page) => page.getByRole('dialog', { name: 'Message Content' });

/** dd/mm/yyyy (as the From and To inputs take it) of a day in the browser's zone, `offset` days from today. */
const day = (offset: number) => {
  const d = new Date(Date.now() + offset * 86_400_000);
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: TZ,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(d);
};

test.describe('MIS Report', () => {
  let user: TestUser;
  let token: string;
  let sessionId: string;
  let jobs: Job[];
  const ids: Record<string, string> = {};

  test.beforeAll(async ({ request }) => {
    user = await createUser(request, { credits: 100 });
    sessionId = await createLinkedSession(request, user, { phoneNumber: '919833300001' });
    token = (await apiLogin(request, user.username, user.password)).token;
    ids.long = await sendIndividual(request, token, sessionId, { content: LONG_TEXT });
    ids.short = await sendIndividual(request, token, sessionId, { content: SHORT_TEXT });
    ids.tricky = await sendIndividual(request, token, sessionId, { content: TRICKY_TEXT });
    ids.poll = await sendIndividual(request, token, sessionId, {
      type: 'poll',
      content: { ...POLL, options: { allowMultipleAnswers: true } },
    });
    ids.image = await sendIndividual(request, token, sessionId, {
      type: 'media',
      mime: 'image/png',
      data: PNG_1X1,
      content: 'A tiny picture',
    });
    ids.corrupt = await sendIndividual(request, token, sessionId, {
      type: 'media',
      mime: 'image/png',
      data: Buffer.from('this is not a picture').toString('base64'),
    });
    ids.pdf = await sendIndividual(request, token, sessionId, {
      type: 'media',
      mime: 'application/pdf',
      data: Buffer.from('%PDF-1.4 price list').toString('base64'),
      fileName: 'price-list.pdf',
    });
    ids.audio = await sendIndividual(request, token, sessionId, {
      type: 'media',
      mime: 'audio/wav',
      data: silentWav(),
    });
    jobs = await finishedJobs(request, token, user.id);
    expect(jobs).toHaveLength(8);
  });

  test('lists every job, cuts previews at 15 characters with Show more, and shows poll details', async ({
    page,
    request,
  }) => {
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/reports');
    await expect(page.getByRole('heading', { name: 'MIS Report' })).toBeVisible();
    await expect(report(page)).toBeVisible();
    await expect(page.getByText(ALL_JOBS)).toBeVisible();
    for (const id of Object.values(ids)) await expect(jobRow(page, id)).toHaveCount(1);

    const long = jobRow(page, ids.long!);
    await expect(long).toContainText('Diwali sale sta...');
    await expect(long).not.toContainText(LONG_TEXT);
    await expect(long).toContainText('919833300001');
    await long.getByRole('button', { name: 'Show more' }).click();
    await expect(popup(page)).toBeVisible();
    await expect(popup(page).getByText(LONG_TEXT)).toBeVisible();
    await popup(page).getByRole('button', { name: 'Close' }).click();
    await expect(popup(page)).toBeHidden();

    const tricky = jobRow(page, ids.tricky!);
    await expect(tricky).toContainText('=SUM(A1) "q", <...');
    await tricky.getByRole('button', { name: 'Show more' }).click();
    await expect(popup(page).getByText(TRICKY_TEXT, { exact: true })).toBeVisible();
    await expect(popup(page).locator('b')).toHaveCount(0);
    await popup(page).getByRole('button', { name: 'Close' }).click();
    await expect(report(page).locator('b')).toHaveCount(0);

    const short = jobRow(page, ids.short!);
    await expect(short).toContainText(SHORT_TEXT);
    // No Show more / Show Details / Show Media: the one button copies the job id.
    await expect(short.getByRole('button')).toHaveText(['']);
    await expect(short.getByRole('button')).toHaveAccessibleName(/^Copy job ID /);

    const poll = jobRow(page, ids.poll!);
    await expect(poll).toContainText('Which day suits...');
    await poll.getByRole('button', { name: 'Show Details' }).click();
    await expect(popup(page).getByText(`Poll Name: ${POLL.pollName}`)).toBeVisible();
    await expect(popup(page).getByRole('list', { name: 'Poll Options' }).getByRole('listitem')).toHaveText(
      POLL.pollOptions,
    );
    await expect(popup(page).getByText('Allow Multiple Answers: Yes')).toBeVisible();
  });

  test('Show Media: a preview at most 500 px high, or no data, invalid data, unsupported type with a download', async ({
    page,
    request,
  }) => {
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/reports');
    await expect(report(page)).toBeVisible();

    await jobRow(page, ids.image!).getByRole('button', { name: 'Show Media' }).click();
    const img = popup(page).getByRole('img', { name: `Media of job ${ids.image}` });
    await expect(img).toBeVisible();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1);
    expect(await img.evaluate((el) => getComputedStyle(el).maxHeight)).toBe('500px');
    await expect(popup(page).getByText('A tiny picture')).toBeVisible();
    await popup(page).getByRole('button', { name: 'Close' }).click();

    await jobRow(page, ids.audio!).getByRole('button', { name: 'Show Media' }).click();
    const audio = popup(page).locator('audio');
    await expect(audio).toHaveAttribute('aria-label', `Media of job ${ids.audio}`);
    await expect
      .poll(() => audio.evaluate((el: HTMLAudioElement) => el.readyState))
      .toBeGreaterThanOrEqual(1);
    await popup(page).getByRole('button', { name: 'Close' }).click();

    await jobRow(page, ids.corrupt!).getByRole('button', { name: 'Show Media' }).click();
    await expect(popup(page).getByText('Invalid media data')).toBeVisible();
    await popup(page).getByRole('button', { name: 'Close' }).click();

    await jobRow(page, ids.pdf!).getByRole('button', { name: 'Show Media' }).click();
    await expect(popup(page).getByText('Unsupported media type')).toBeVisible();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      popup(page).getByRole('link', { name: 'Download price-list.pdf' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('price-list.pdf');
    expect(fs.readFileSync((await download.path())!, 'utf8')).toBe('%PDF-1.4 price list');
    await popup(page).getByRole('button', { name: 'Close' }).click();

    // States the server does not produce for a stored file: an answer without the body, or a broken one.
    let mediaData: string | null = null;
    await page.route('**/api/message-jobs-details/**', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { job: { mediaData: string | null } };
      body.job.mediaData = mediaData;
      await route.fulfill({ response: res, json: body });
    });
    // The files seen so far are cached by the page: start afresh.
    await page.reload();
    await jobRow(page, ids.image!).getByRole('button', { name: 'Show Media' }).click();
    await expect(popup(page).getByText('No media data available')).toBeVisible();
    await popup(page).getByRole('button', { name: 'Close' }).click();

    mediaData = '@@not-base64@@';
    await jobRow(page, ids.pdf!).getByRole('button', { name: 'Show Media' }).click();
    await expect(popup(page).getByText('Invalid media data')).toBeVisible();
  });

  test('From and To include their whole days; Clear shows every job again', async ({ page, request }) => {
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/reports');
    await expect(page.getByText(ALL_JOBS)).toBeVisible();
    const from = page.getByRole('textbox', { name: 'From' });
    const to = page.getByRole('textbox', { name: 'To' });

    await from.fill(day(0));
    await expect(page.getByText(ALL_JOBS)).toBeVisible();
    await to.fill(day(0));
    // Same day at both ends: the jobs of today are in.
    await expect(page.getByText(ALL_JOBS)).toBeVisible();

    await from.fill(day(1));
    await to.fill(day(1));
    await expect(page.getByText('No jobs found')).toBeVisible();

    await page.getByRole('button', { name: 'Clear' }).click();
    await expect(from).toHaveValue('');
    await expect(to).toHaveValue('');
    await expect(page.getByText(ALL_JOBS)).toBeVisible();

    await to.fill(day(-1));
    await expect(page.getByText('No jobs found')).toBeVisible();
    await to.fill(day(0));
    await expect(page.getByText(ALL_JOBS)).toBeVisible();
  });

  test('mis_report.csv has the spec columns, one row per job, compared column by column', async ({
    page,
    request,
  }) => {
    await signInByStorage(page, request, user.username, user.password);
    // The receipts' figures are in the file: wait for the simulator's (1 s delivered, 5 s read).
    await expect
      .poll(async () =>
        (await jobsOf(request, token, user.id)).every((j) => j.results.delivered === j.results.success),
      )
      .toBe(true);
    await page.waitForTimeout(5_500);
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
    // The spec's columns first, then status, receipts and the whole content (issue 29, item 8).
    expect(header).toEqual([
      ...REPORT_HEADERS,
      'Status',
      'Delivered',
      'Read',
      'Replied',
      'Undelivered',
      'Content',
      'Meta Category',
      'Meta Cost (INR)',
    ]);
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
        '919833300001',
        String(job.progress.total),
        String(job.results.success),
        String(job.results.failed),
        created[job.id],
        job.messageType,
        preview[job.id],
        job.status,
        String(job.delivery.delivered),
        String(job.delivery.read),
        String(job.delivery.replied),
        String(job.delivery.undelivered),
        full[job.id],
        // Not Cloud API template jobs: no category, no charge (issue 30).
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
    expect(table.rows[0]).toEqual(REPORT_HEADERS);
    expect(table.rows.find((r) => r[0] === ids.tricky)?.[7]).toBe('=SUM(A1) "q", <...');
    expect(
      table.rows
        .slice(1)
        .map((r) => r[0])
        .sort(),
    ).toEqual(jobs.map((j) => j.id).sort());
  });

  test('a new job appears within the 15-second poll, without reloading', async ({ page, request }) => {
    test.setTimeout(90_000);
    const other = await createUser(request, { credits: 5 });
    const otherSession = await createLinkedSession(request, other, { phoneNumber: '919833300002' });
    const { token: otherToken } = await signInByStorage(page, request, other.username, other.password);
    await page.goto('/#/reports');
    await expect(page.getByText('No jobs found')).toBeVisible();

    const alerts: string[] = [];
    page.on('dialog', async (d) => {
      alerts.push(d.message());
      await d.dismiss();
    });
    await page.getByRole('button', { name: 'CSV' }).click();
    await page.getByRole('button', { name: 'PDF/Print' }).click();
    await expect.poll(() => alerts).toEqual(['No data to export', 'No data to print']);

    const id = await sendIndividual(request, otherToken, otherSession, { content: 'Fresh news' });
    const started = Date.now();
    await expect(jobRow(page, id)).toBeVisible({ timeout: 20_000 });
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

test('the report reads the server a page at a time, searches on the server and exports every job', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const owner = await createUser(request, { credits: 110 });
  const sessionId = await createLinkedSession(request, owner, { phoneNumber: '919833300003' });
  const { token } = await signInByStorage(page, request, owner.username, owner.password);
  const later = new Date(Date.now() + 24 * 3600_000).toISOString();
  for (let i = 1; i <= 101; i++) {
    await sendIndividual(request, token, sessionId, {
      content: `Batch ${String(i).padStart(3, '0')}`,
      scheduleTime: later,
    });
  }
  await page.goto('/#/reports');
  await expect(page.getByText('101 jobs (100 shown)')).toBeVisible();
  await expect(report(page).getByRole('row').filter({ hasText: 'Batch 001' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Load more jobs' }).click();
  await expect(page.getByText('101 jobs', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Load more jobs' })).toHaveCount(0);

  // The CSV is the server's file of the whole range, whatever is loaded.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('mis_report.csv');
  const rows = Papa.parse<string[]>(fs.readFileSync((await download.path())!, 'utf8').slice(1), {
    skipEmptyLines: true,
  }).data;
  // The header, 101 jobs and the totals row.
  expect(rows).toHaveLength(103);
  expect(rows.at(-1)?.slice(0, 3)).toEqual(['Total', '', '101']);

  await page.getByLabel('Search jobs').fill('batch 042');
  await expect(page.getByText('1 job', { exact: true })).toBeVisible();
  await expect(report(page).getByRole('row').filter({ hasText: 'Batch 042' })).toHaveCount(1);
});
