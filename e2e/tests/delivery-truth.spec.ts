import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import { type Job, jobsOf, replyOnceDelivered, sendIndividual } from './support/jobs.ts';

/**
 * Delivery truth as a user sees it. The simulator's contacts (server/src/transport/
 * simulator): 919844410002 confirms delivery, then reads; 919844410003 confirms delivery and does
 * not read (its phone shares no read receipts); 919844410001 never confirms (a number ending 0001),
 * so it goes undelivered after UNDELIVERED_AFTER_MS (15 s on the browser tests' server). The second
 * writes back: a reply.
 */
const READS = '919844410002';
const REPLIES = '919844410003';
const SILENT = '919844410001';
const FIGURES = { Delivered: '2 (66.7%)', Read: '1 (33.3%)', Replied: '1 (33.3%)', Undelivered: '1 (33.3%)' };

const jobRow = (page: Page, table: string, jobId: string) =>
  page
    .getByRole('table', { name: table })
    .getByRole('row')
    .filter({ has: page.getByTitle(jobId) });

test("a job's delivered, read, replied and undelivered figures in Message Jobs, Job Details and the MIS Report", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { user, sessionId: accountId, token } = await userWithAccount(page, request, { credits: 5 });
  const jobId = await sendIndividual(request, token, accountId, {
    chatIds: [READS, REPLIES, SILENT],
    content: 'Your order has shipped',
  });
  // The contact writes back once the message is there.
  await replyOnceDelivered(
    request,
    { token, userId: user.id, sessionId: accountId },
    { id: jobId, delivered: 2 },
    { from: REPLIES, text: 'Thank you, when will it arrive?' },
  );
  // The read receipt (5 s) and the deadline of the silent number (15 s, swept every few seconds).
  let job: Job | undefined;
  await expect
    .poll(
      async () => {
        job = (await jobsOf(request, token, user.id)).find((j) => j.id === jobId);
        return job?.delivery;
      },
      { timeout: 60_000, intervals: [1000] },
    )
    .toEqual({ delivered: 2, read: 1, replied: 1, undelivered: 1 });

  // Message Jobs: the figures under the job's results, each with its rate of the sent messages.
  await page.goto('/#/jobs');
  const row = jobRow(page, 'Message jobs', jobId);
  await expect(row).toContainText('Success: 3');
  for (const [label, value] of Object.entries(FIGURES)) await expect(row).toContainText(`${label}: ${value}`);

  // Job Details: the same figures, and each recipient's stage, the reply and the undelivered cause.
  await row.getByRole('button', { name: 'View' }).click();
  const dialog = page.getByRole('dialog', { name: `Job Details: ${jobId}` });
  await expect(dialog).toBeVisible();
  for (const [label, value] of Object.entries(FIGURES))
    await expect(dialog).toContainText(`${label}${value}`);
  const recipients = dialog.getByRole('table', { name: 'Recipients' });
  const recipient = (n: string) => recipients.getByRole('row').filter({ hasText: n });
  await expect(recipient(READS)).toContainText('read');
  await expect(recipient(REPLIES)).toContainText('delivered');
  await expect(recipient(REPLIES)).toContainText('Thank you, when will it arrive?');
  await expect(recipient(SILENT)).toContainText('undelivered');
  await expect(recipient(SILENT)).toContainText('Undelivered: no delivery receipt came');
  await page.keyboard.press('Escape');

  // The MIS Report: the figures under the job's sent count.
  await page.goto('/#/reports');
  const reportRow = jobRow(page, 'MIS Report jobs', jobId);
  for (const [label, value] of Object.entries(FIGURES))
    await expect(reportRow).toContainText(`${label} ${value}`);
});
