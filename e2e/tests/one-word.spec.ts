import fs from 'node:fs';
import type { Page } from '@playwright/test';
import Papa from 'papaparse';
import { expect, saveScreenshot, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import { seriousViolations } from './support/axe.ts';
import { contactsTable, uploadList } from './support/bulk.ts';
import { sendApi } from './support/customer.ts';
import { quietNow } from './support/policy.ts';

/** One job, one word: the send page's panel, Message Jobs and mis_report.csv name a job alike. */

/** The Status column of the MIS Report's CSV for the job whose id is `jobId`. */
async function csvStatus(page: Page, jobId: string): Promise<string | undefined> {
  await page.goto('/#/reports');
  // The report's jobs are in before the file is asked for.
  await expect(page.getByRole('table', { name: 'MIS Report jobs' }).getByText(jobId.slice(0, 8))).toBeVisible(
    {
      timeout: 30_000,
    },
  );
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'CSV' }).click(),
  ]);
  const text = fs.readFileSync((await download.path())!, 'utf8');
  const [header, ...rows] = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true }).data;
  return rows.find((r) => r[0] === jobId)?.[header!.indexOf('Status')];
}

test('a send held by quiet hours reads WAITING with its reason on the bulk page and in Message Jobs', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  const end = await quietNow(request, headers, accountId);

  await page.goto('/#/bulkmessage');
  await uploadList(page, 'numbers.csv', '919822200061\n919822200062\n');
  await contactsTable(page).getByRole('checkbox', { name: 'Select All' }).check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('After the quiet hours');
  await page.getByRole('button', { name: 'Send Now' }).click();

  const reason = `Waiting: quiet hours until ${end}`;
  const panel = page.getByRole('region', { name: 'Sending Progress' });
  await expect(panel.getByLabel('Status: waiting')).toBeVisible({ timeout: 15_000 });
  await expect(panel).toContainText(reason);
  await expect(panel).toContainText('0 of 2 (0%)');
  // Sending has begun and not ended: the spec's words, and no 'finished' beside them.
  const status = page.getByRole('status', { name: 'Status' });
  await expect(status).toContainText('Message sending Initiated');
  await expect(status).not.toContainText('finished');
  await saveScreenshot(page, 'bulk-waiting.png', { fullPage: true });
  expect(await seriousViolations(page)).toEqual([]);

  await page.goto('/#/jobs');
  const row = page.getByRole('table', { name: 'Message jobs' }).getByRole('row').filter({ hasText: reason });
  await expect(row.getByText('waiting', { exact: true })).toBeVisible();
  await expect(row).toContainText('0 / 2 (0%)');
  await saveScreenshot(page, 'jobs-waiting.png');
});

test('a partly sent job: its word, 1 of 2 sent and 1 / 2 (50%) alike, under Failed with why, and Partly sent in the CSV', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  // 917040330001 is not on WhatsApp: one of the two fails.
  const jobId = await sendApi(request, headers, accountId, {
    chatIds: ['919822200071', '917040330001'],
    content: 'One of two',
  });
  await expect
    .poll(async () => {
      const res = await request.get(`/api/message-jobs-details/${jobId}`, { headers });
      return ((await res.json()) as { job: { status: string } }).job.status;
    })
    .toBe('failed');

  await page.goto('/#/jobs');
  const table = page.getByRole('table', { name: 'Message jobs' });
  const row = table.getByRole('row').filter({ hasText: jobId.slice(0, 8) });
  await expect(row.getByText('Partly sent', { exact: true })).toBeVisible();
  await expect(row.getByText('1 of 2 sent', { exact: true })).toBeVisible();
  await expect(row).toContainText('1 / 2 (50%)');
  await expect(row).not.toContainText('100%');
  await expect(row.getByRole('progressbar', { name: `Progress of job ${jobId}` })).toHaveAttribute(
    'aria-valuenow',
    '50',
  );

  await page.getByRole('tab', { name: /^Completed/ }).click();
  await expect(
    page.getByText(
      'Jobs whose every message was sent. A partly sent job is under Failed, where Retry Failed can send its failures again.',
    ),
  ).toBeVisible();
  await expect(page.getByText('No completed jobs found.')).toBeVisible();
  await page.getByRole('tab', { name: /^Failed/ }).click();
  await expect(
    page.getByText(
      'Every job with a failed message is here, partly sent ones too: Retry Failed sends their failures again.',
    ),
  ).toBeVisible();
  await expect(row.getByText('Partly sent', { exact: true })).toBeVisible();
  await saveScreenshot(page, 'jobs-partly-sent.png', { fullPage: true });
  expect(await seriousViolations(page)).toEqual([]);

  expect(await csvStatus(page, jobId)).toBe('Partly sent');
});
