import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, saveScreenshot, test } from '../fixtures.ts';
import { balanceBubble, userWithAccount } from './messaging-helpers.ts';
import {
  type Job,
  jobsOf,
  openJobDetails,
  PNG_1X1,
  replyOnceDelivered,
  sendIndividual,
} from './support/jobs.ts';

/**
 * The simulator's contacts (server/src/transport/simulator): 919844420002 confirms delivery and
 * reads; 919844420003 confirms delivery and writes back.
 */
const READS = '919844420002';
const REPLIES = '919844420003';

/** A signed-in user whose job went to READS and REPLIES, and REPLIES answered; Follow up is open. */
async function followUpOfAnsweredJob(page: Page, request: APIRequestContext) {
  const who = await userWithAccount(page, request, { credits: 5 });
  const { user, sessionId: accountId, token } = who;
  const jobId = await sendIndividual(request, token, accountId, {
    chatIds: [READS, REPLIES],
    content: 'Our sale starts today',
  });
  await replyOnceDelivered(
    request,
    { token, userId: user.id, sessionId: accountId },
    { id: jobId, delivered: 2 },
    { from: REPLIES, text: 'What is the price?' },
  );
  await expect
    .poll(async () => (await jobsOf(request, token, user.id)).find((j) => j.id === jobId)?.delivery.replied, {
      timeout: 30_000,
    })
    .toBe(1);
  const details = await openJobDetails(page, jobId);
  await details.getByRole('button', { name: 'Follow up' }).click();
  const dialog = page.getByRole('dialog', { name: 'Follow up', exact: true });
  return { ...who, jobId, details, dialog };
}

/** Follow up, confirmed to send now to the one contact at 1 credit; returns the new job. */
async function sendFollowUpNow(page: Page, dialog: Locator, jobs: () => Promise<Job[]>, jobId: string) {
  await dialog.getByRole('button', { name: 'Follow up' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm follow-up' });
  await expect(confirm).toContainText('1 credit');
  await confirm.getByRole('button', { name: 'Send Now' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Follow-up sent to 1 contact');
  await expect(balanceBubble(page)).toHaveText('Balance: 2');
  return (await jobs()).find((j) => j.id !== jobId);
}

test('Follow up from Job Details: the segments with their counts, the confirmation, a new job to the segment; the segment saved as a list', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { user, token, headers, jobId, dialog } = await followUpOfAnsweredJob(page, request);
  await expect(dialog.getByRole('radio', { name: 'Replied (1)', exact: true })).toBeVisible();
  await expect(dialog.getByRole('radio', { name: 'Not replied (1)' })).toBeEnabled();
  await expect(dialog.getByRole('radio', { name: 'Failed (retryable) (0)' })).toBeDisabled();
  await dialog.getByRole('radio', { name: 'Replied (1)', exact: true }).check();

  await dialog.getByRole('textbox', { name: 'Contact list name' }).fill('Asked the price');
  await dialog.getByRole('button', { name: 'Save as contact list' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Saved 1 numbers as the contact list Asked the price');

  await dialog.getByRole('textbox', { name: 'Message' }).fill('It is 499 today only');
  const followUp = await sendFollowUpNow(page, dialog, () => jobsOf(request, token, user.id), jobId);
  expect(followUp?.progress.total).toBe(1);
  const details = await request.get(`/api/message-jobs-details/${followUp!.id}`, { headers });
  const body = (await details.json()) as { job: { details: { chatId: string }[]; messageContent?: string } };
  expect(body.job.details.map((d) => d.chatId)).toEqual([`${REPLIES}@s.whatsapp.net`]);
});

test('a follow-up with a file, confirmed from Job Details, is a new media job to the segment', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { user, token, headers, jobId, dialog } = await followUpOfAnsweredJob(page, request);
  await dialog.getByRole('radio', { name: 'Replied (1)', exact: true }).check();
  await dialog.getByRole('tab', { name: 'Media Message' }).click();
  const chooser = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Select File' }).click();
  await (await chooser).setFiles({ name: 'price-list.png', mimeType: 'image/png', buffer: PNG_1X1 });
  await expect(dialog.getByRole('img', { name: 'Preview of price-list.png' })).toBeVisible();
  await dialog.getByRole('textbox', { name: 'Caption (optional)' }).fill('Our price list');
  await saveScreenshot(page, 'follow-up-file.png');
  const followUp = await sendFollowUpNow(page, dialog, () => jobsOf(request, token, user.id), jobId);

  // The new job, in the jobs list and in its details: the file, its caption, the one who replied.
  expect([followUp?.messageType, followUp?.fileName, followUp?.mediaMime, followUp?.progress.total]).toEqual([
    'media',
    'price-list.png',
    'image/png',
    1,
  ]);
  await page.keyboard.press('Escape');
  const details = await openJobDetails(page, followUp!.id);
  await expect(details).toContainText('price-list.png · image/png');
  await expect(details).toContainText('Our price list');
  const res = await request.get(`/api/message-jobs-details/${followUp!.id}`, { headers });
  const body = (await res.json()) as { job: { details: { chatId: string }[] } };
  expect(body.job.details.map((d) => d.chatId)).toEqual([`${REPLIES}@s.whatsapp.net`]);
});

test('a scheduled follow-up waits in Job Details and is cancelled there, after a confirmation', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { headers, jobId, details, dialog } = await followUpOfAnsweredJob(page, request);
  await dialog.getByRole('radio', { name: 'Not replied (1)' }).check();
  await dialog.getByRole('textbox', { name: 'Message' }).fill('Still thinking about it?');
  await dialog.getByRole('textbox', { name: 'Send after (days)' }).fill('2');
  await dialog.getByRole('button', { name: 'Follow up' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm follow-up' });
  await expect(confirm).toContainText('Starts 2 days after the job is sent');
  await confirm.getByRole('button', { name: 'Schedule' }).click();
  await expect(dialog.getByRole('status')).toHaveText(/^Follow-up scheduled for /);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(balanceBubble(page)).toHaveText('Balance: 3');

  const scheduled = details.getByRole('group', { name: 'Scheduled follow-ups' });
  await expect(scheduled).toContainText('Follow-up to Not replied: waits until');
  await scheduled.getByRole('button', { name: /^Cancel the follow-up due / }).click();
  const ask = page.getByRole('dialog', { name: 'Cancel follow-up' });
  await expect(ask).toContainText('will not be sent. Nothing has been charged for it.');
  await ask.getByRole('button', { name: 'Cancel follow-up' }).click();
  await expect(scheduled.getByRole('status')).toHaveText('Follow-up cancelled');
  await expect(scheduled).toContainText('Follow-up to Not replied: cancelled, was due');
  await expect(scheduled.getByRole('button', { name: /^Cancel/ })).toHaveCount(0);

  const res = await request.get(`/api/message-jobs/${jobId}/segments`, { headers });
  expect(((await res.json()) as { scheduled: { state: string }[] }).scheduled.map((f) => f.state)).toEqual([
    'cancelled',
  ]);
  await expect(balanceBubble(page)).toHaveText('Balance: 3');
});
