import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures.ts';
import { balanceBubble, localInputValue, onGroupMessaging, userWithAccount } from './messaging-helpers.ts';
import { jobStatus } from './support/customer.ts';
import { confirmRetryWithCopy } from './support/jobs.ts';

const jobsTable = (page: Page) => page.getByRole('table', { name: 'Message jobs' });

async function send(
  request: import('@playwright/test').APIRequestContext,
  headers: Record<string, string>,
  accountId: string,
  body: Record<string, unknown>,
  audience: 'groups' | 'individuals' = 'individuals',
) {
  const action = audience === 'groups' ? 'sendBulkMessage' : 'sendIndividualMessage';
  const res = await request.post(`/api/session/${accountId}/${action}`, { headers, data: body });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { jobId: string }).jobId;
}

async function waitForStatus(
  request: import('@playwright/test').APIRequestContext,
  headers: Record<string, string>,
  jobId: string,
  status: string,
) {
  await expect
    .poll(async () => (await jobStatus(request, headers, jobId)).status, { timeout: 20_000 })
    .toBe(status);
}

test('the empty texts of every filter', async ({ page, request }) => {
  await userWithAccount(page, request, { credits: 3 });
  await page.goto('/#/jobs');
  await expect(page.getByRole('heading', { name: 'Message Jobs' })).toBeVisible();
  await expect(page.getByLabel('0 jobs')).toBeVisible();
  await expect(balanceBubble(page)).toHaveText('Balance: 3');
  await expect(page.getByText('No message jobs found. Send some messages to get started!')).toBeVisible();
  for (const [tab, word] of [
    ['Active', 'active'],
    ['Completed', 'completed'],
    ['Failed', 'failed'],
    ['Scheduled', 'scheduled'],
  ]) {
    await page.getByRole('tab', { name: tab }).click();
    await expect(page.getByText(`No ${word} jobs found.`, { exact: true })).toBeVisible();
  }
});

test('the jobs table, its filters and the Job Details modal', async ({ page, request }) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 10 });
  const done = await send(request, headers, accountId, {
    chatIds: ['919800000031', '919800000032'],
    content: 'Order shipped',
  });
  await waitForStatus(request, headers, done, 'completed');
  const failed = await send(request, headers, accountId, {
    chatIds: ['919800000033', '917040330001'],
    type: 'poll',
    content: { pollName: 'Rate us', pollOptions: ['Good', 'Bad'], options: { allowMultipleAnswers: false } },
  });
  await waitForStatus(request, headers, failed, 'failed');
  // The job fails within a second, before the phone of 919800000033 confirms delivery (1 s after
  // the send): Job Details reads the recipients once, so the page is opened after that receipt.
  await expect
    .poll(async () => {
      const res = await request.get(`/api/message-jobs-details/${failed}`, { headers });
      const { job } = (await res.json()) as {
        job: { details: { chatName: string; deliveredAt: string | null }[] };
      };
      return job.details.find((d) => d.chatName === '919800000033')?.deliveredAt ?? null;
    })
    .not.toBeNull();

  await page.goto('/#/jobs');
  await expect(page.getByLabel('2 jobs')).toBeVisible();
  const table = jobsTable(page);
  for (const header of [
    'Job ID',
    'Phone Number',
    'Type',
    'Status',
    'Progress',
    'Results',
    'Created',
    'Actions',
  ]) {
    await expect(table.getByRole('columnheader', { name: header, exact: true })).toBeVisible();
  }
  const doneRow = table.getByRole('row').filter({ hasText: done.slice(0, 8) });
  await expect(doneRow).toContainText('919800000001');
  await expect(doneRow).toContainText('text');
  await expect(doneRow).toContainText('completed');
  await expect(doneRow).toContainText('2 / 2 (100%)');
  await expect(doneRow.getByRole('button', { name: 'Retry Failed' })).toHaveCount(0);
  const failedRow = table.getByRole('row').filter({ hasText: failed.slice(0, 8) });
  await expect(failedRow).toContainText('poll');
  await expect(failedRow.getByRole('button', { name: 'Retry Failed' })).toBeVisible();

  await page.getByRole('tab', { name: 'Completed' }).click();
  await expect(table.getByRole('row').filter({ hasText: done.slice(0, 8) })).toHaveCount(1);
  await expect(table.getByRole('row').filter({ hasText: failed.slice(0, 8) })).toHaveCount(0);
  await page.getByRole('tab', { name: 'Failed' }).click();
  await expect(table.getByRole('row').filter({ hasText: failed.slice(0, 8) })).toHaveCount(1);
  await page.getByRole('tab', { name: 'Active' }).click();
  await expect(page.getByText('No active jobs found.')).toBeVisible();

  await page.getByRole('tab', { name: 'All Jobs' }).click();
  await table
    .getByRole('row')
    .filter({ hasText: failed.slice(0, 8) })
    .getByRole('button', { name: 'View' })
    .click();
  const dialog = page.getByRole('dialog', { name: `Job Details: ${failed}` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Message Typepoll');
  await expect(dialog).toContainText('Success1');
  await expect(dialog).toContainText('Failed1');
  await expect(dialog).toContainText('Rate us');
  await expect(dialog).not.toContainText('Scheduled Time');
  const recipients = dialog.getByRole('table', { name: 'Recipients' });
  const bad = recipients.getByRole('row').filter({ hasText: '917040330001' });
  await expect(bad).toContainText('failed');
  await expect(bad).toContainText('N/A');
  await expect(bad).toContainText('Send timed out: delivery unknown');
  // A sent recipient shows how far it got: the simulator's phone confirms delivery, then reading,
  // a moment apart.
  await expect(recipients.getByRole('row').filter({ hasText: '919800000033' })).toContainText(
    /delivered|read/,
  );
  await dialog.getByRole('button', { name: 'Retry Failed' }).click();
  await confirmRetryWithCopy(page, 1);
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'Retrying 1 failed message' })).toBeVisible();
});

test('a retry is refused when the balance is lower than the failed count', async ({ page, request }) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 3 });
  const failed = await send(request, headers, accountId, {
    chatIds: ['917040440001', '917040550001'],
    content: 'Hi',
  });
  await waitForStatus(request, headers, failed, 'failed');
  // Two credits go to a scheduled job: one left for two failed recipients.
  await send(request, headers, accountId, {
    chatIds: ['919800000061', '919800000062'],
    content: 'Later',
    scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
  });
  await page.goto('/#/jobs');
  await expect(balanceBubble(page)).toHaveText('Balance: 1');
  await jobsTable(page)
    .getByRole('row')
    .filter({ hasText: failed.slice(0, 8) })
    .getByRole('button', { name: 'Retry Failed' })
    .click();
  await expect(page.getByRole('status', { name: 'Status' })).toHaveText(
    'Your Credit Balance is lower than the message count',
  );
});

test('a scheduled send shows in the Scheduled tab as "Scheduled ..." and is sent at its time', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const names = (await onGroupMessaging(page, request, { credits: 10 })).groups;
  const groups = page.getByRole('table', { name: 'Select Groups' });
  for (const n of names.slice(0, 2))
    await groups.getByRole('checkbox', { name: `Select ${n}`, exact: true }).check();
  await page
    .getByRole('textbox', { name: 'Message', exact: true })
    .fill('Meeting reminder for everyone tomorrow at the main hall');
  await page.getByRole('button', { name: 'Schedule Message' }).click();
  const dialog = page.getByRole('dialog', { name: 'Schedule Message' });
  await expect(dialog).toContainText('Text Message');
  await expect(dialog).toContainText('Groups2');
  await expect(dialog).toContainText('Meeting reminder for everyone tomorrow at the main...');

  // The next whole minute at least 20 s away (the input takes minutes): the checks below, that
  // the job waits under Scheduled with nothing sent, took 1.2 s (more on a busy machine) and
  // must end before it.
  const at = new Date(Date.now() + 80_000);
  at.setSeconds(0, 0);
  const value = localInputValue(at);
  await dialog.getByLabel('Schedule time').fill(value);
  const shown = await page.evaluate((v) => new Date(v).toLocaleString('en-IN'), value);
  await expect(dialog).toContainText(shown);
  await dialog.getByRole('button', { name: 'Schedule Message' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('status', { name: 'Status' })).toContainText(
    `Message scheduled successfully! Scheduled for ${shown}`,
  );
  await expect(balanceBubble(page)).toHaveText('Balance: 8');
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveValue('');

  await page.getByRole('button', { name: 'View All Jobs' }).click();
  await page.getByRole('tab', { name: 'Scheduled' }).click();
  const row = jobsTable(page).getByRole('row').filter({ hasText: 'Scheduled text' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('scheduled');
  await row.getByRole('button', { name: 'View' }).click();
  const details = page.getByRole('dialog', { name: /^Job Details: / });
  await expect(details).toContainText(`Scheduled Time${shown}`);
  await expect(
    details.getByRole('table', { name: 'Recipients' }).getByRole('row').filter({ hasText: 'N/A' }),
  ).toHaveCount(2);
  // Seen waiting, nothing sent, before its time.
  expect(Date.now()).toBeLessThan(at.getTime());
  await page.keyboard.press('Escape');

  await page.getByRole('tab', { name: 'Completed' }).click();
  // Refreshed every second or so: the send is seen about when it ends, not up to 5 s later.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(jobsTable(page).getByRole('row').filter({ hasText: 'Scheduled text' })).toContainText(
      '2 / 2 (100%)',
      { timeout: 1_000 },
    );
  }).toPass({ timeout: 150_000, intervals: [250] });
  expect(Date.now()).toBeGreaterThanOrEqual(at.getTime());
});

test('delete through the Confirm Delete modal; a scheduled job is refunded', async ({ page, request }) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  const jobId = await send(request, headers, accountId, {
    chatIds: ['919800000071', '919800000072', '919800000073'],
    content: 'Later',
    scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
  });
  await page.goto('/#/jobs');
  await expect(balanceBubble(page)).toHaveText('Balance: 2');
  const row = jobsTable(page)
    .getByRole('row')
    .filter({ hasText: jobId.slice(0, 8) });
  await row.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Confirm Delete' });
  await expect(dialog).toContainText('Are you sure you want to delete this job?');
  await expect(dialog).toContainText(jobId);
  await expect(dialog).toContainText('This action cannot be undone.');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(row).toHaveCount(1);

  await row.getByRole('button', { name: 'Delete' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(row).toHaveCount(0);
  await expect(page.getByText('No message jobs found. Send some messages to get started!')).toBeVisible();
  await expect(balanceBubble(page)).toHaveText('Balance: 5');
});

test('the server pages the jobs: 100 at a time, tab counts from its summary, search by message text', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const { headers, sessionId: accountId } = await userWithAccount(page, request, { credits: 110 });
  const later = new Date(Date.now() + 24 * 3600_000).toISOString();
  for (let i = 1; i <= 103; i++) {
    await send(request, headers, accountId, {
      chatIds: ['919800000031'],
      type: 'string',
      content: `Batch ${String(i).padStart(3, '0')}`,
      scheduleTime: later,
    });
  }
  const now = await send(request, headers, accountId, { chatIds: ['919800000032'], content: 'Sent at once' });
  await waitForStatus(request, headers, now, 'completed');

  await page.goto('/#/jobs');
  await expect(page.getByLabel('104 jobs')).toBeVisible();
  await expect(page.getByRole('tab', { name: /^All Jobs\s*104$/ })).toBeVisible();
  await expect(page.getByRole('tab', { name: /^Scheduled\s*103$/ })).toBeVisible();
  await expect(page.getByRole('tab', { name: /^Completed\s*1$/ })).toBeVisible();
  await expect(page.getByRole('tab', { name: /^Failed\s*0$/ })).toBeVisible();
  await expect(page.getByText('Showing 100 of 104')).toBeVisible();

  await page.getByRole('button', { name: 'Load more jobs' }).click();
  await expect(page.getByText('Showing 104 of 104')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Load more jobs' })).toHaveCount(0);

  await page.getByRole('tab', { name: /^Completed/ }).click();
  await expect(page.getByText('Showing 1 of 1')).toBeVisible();
  await expect(jobsTable(page).getByTitle(now)).toHaveText(now.slice(0, 8));

  await page.getByRole('tab', { name: /^Scheduled/ }).click();
  await expect(page.getByText('Showing 100 of 103')).toBeVisible();
  await page.getByLabel('Search jobs').fill('batch 042');
  await expect(page.getByText('Showing 1 of 1')).toBeVisible();
  // The counts follow the search: one job in all, that one scheduled.
  await expect(page.getByRole('tab', { name: /^All Jobs\s*1$/ })).toBeVisible();
  await expect(page.getByLabel('1 jobs')).toBeVisible();
  await page.getByLabel('Search jobs').fill('no such words');
  await expect(page.getByText("No jobs match 'no such words'.")).toBeVisible();
});
