import fs from 'node:fs';
import type { Page } from '@playwright/test';
import Papa from 'papaparse';
import {
  createLinkedAccount,
  createUser,
  expect,
  signInByStorage,
  type TestUser,
  test,
} from '../fixtures.ts';
import { sendIndividual } from './support/jobs.ts';
import { expectNothingToExport } from './support/print.ts';
import {
  ALL_JOBS,
  jobRow,
  LONG_TEXT,
  POLL,
  report,
  reportUser,
  SHORT_TEXT,
  TRICKY_TEXT,
  TZ,
} from './support/reports.ts';

test.use({ timezoneId: TZ });

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
  let ids: Record<string, string>;

  test.beforeAll(async ({ request }) => {
    ({ user, ids } = await reportUser(request, '919833300001'));
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
    // No Show more / Show Details / Show Media: a button copies the job id, and the finished
    // one-to-one job offers Follow up.
    await expect(short.getByRole('button')).toHaveText(['', 'Follow up']);
    await expect(short.getByRole('button').first()).toHaveAccessibleName(/^Copy job ID /);

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

  test('a new job appears within the 15-second poll, without reloading', async ({ page, request }) => {
    test.setTimeout(90_000);
    const other = await createUser(request, { credits: 5 });
    const otherAccount = await createLinkedAccount(request, other, { phoneNumber: '919833300002' });
    const { token: otherToken } = await signInByStorage(page, request, other.username, other.password);
    // The page's own clock, moved on by hand below: the poll is seen without waiting 15 s for it.
    await page.clock.install();
    await page.goto('/#/reports');
    await expect(page.getByText('No jobs found')).toBeVisible();

    await expectNothingToExport(page);

    const id = await sendIndividual(request, otherToken, otherAccount, { content: 'Fresh news' });
    await expect(page.getByText('No jobs found')).toBeVisible();
    // 15 s on, the poll has read the report again and the job is in it, without a reload: seen
    // within 20 s of the page's time, as when the test waited for the poll (a 15 s wait).
    await page.clock.fastForward(15_000);
    await expect(jobRow(page, id)).toBeVisible({ timeout: 5_000 });
  });
});

test('the report reads the server a page at a time, searches on the server and exports every job', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const owner = await createUser(request, { credits: 110 });
  const accountId = await createLinkedAccount(request, owner, { phoneNumber: '919833300003' });
  const { token } = await signInByStorage(page, request, owner.username, owner.password);
  const later = new Date(Date.now() + 24 * 3600_000).toISOString();
  for (let i = 1; i <= 101; i++) {
    await sendIndividual(request, token, accountId, {
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
