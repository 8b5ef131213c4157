import { expect, test } from '../fixtures.ts';
import { balanceBubble, userWithSession } from './messaging-helpers.ts';
import { jobsOf, replyOnceDelivered, sendIndividual } from './support/jobs.ts';

/**
 * The simulator's contacts (server/src/transport/simulator): 919844420002 confirms delivery and
 * reads; 919844420003 confirms delivery and writes back.
 */
const READS = '919844420002';
const REPLIES = '919844420003';

test('Follow up from Job Details: the segments with their counts, the confirmation, a new job to the segment; the segment saved as a list', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { user, sessionId, token, headers } = await userWithSession(page, request, { credits: 5 });
  const jobId = await sendIndividual(request, token, sessionId, {
    chatIds: [READS, REPLIES],
    content: 'Our sale starts today',
  });
  await replyOnceDelivered(
    request,
    { token, userId: user.id, sessionId },
    { id: jobId, delivered: 2 },
    { from: REPLIES, text: 'What is the price?' },
  );
  await expect
    .poll(async () => (await jobsOf(request, token, user.id)).find((j) => j.id === jobId)?.delivery.replied, {
      timeout: 30_000,
    })
    .toBe(1);

  await page.goto('/#/jobs');
  await page
    .getByRole('table', { name: 'Message jobs' })
    .getByRole('row')
    .filter({ has: page.getByTitle(jobId) })
    .getByRole('button', { name: 'View' })
    .click();
  await page
    .getByRole('dialog', { name: `Job Details: ${jobId}` })
    .getByRole('button', { name: 'Follow up' })
    .click();
  const dialog = page.getByRole('dialog', { name: 'Follow up', exact: true });
  await expect(dialog.getByRole('radio', { name: 'Replied (1)', exact: true })).toBeVisible();
  await expect(dialog.getByRole('radio', { name: 'Not replied (1)' })).toBeEnabled();
  await expect(dialog.getByRole('radio', { name: 'Failed (retryable) (0)' })).toBeDisabled();
  await dialog.getByRole('radio', { name: 'Replied (1)', exact: true }).check();

  await dialog.getByRole('textbox', { name: 'Contact list name' }).fill('Asked the price');
  await dialog.getByRole('button', { name: 'Save as contact list' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Saved 1 numbers as the contact list Asked the price');

  await dialog.getByRole('textbox', { name: 'Message' }).fill('It is 499 today only');
  await dialog.getByRole('button', { name: 'Follow up' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm follow-up' });
  await expect(confirm).toContainText('1 credit');
  await confirm.getByRole('button', { name: 'Send Now' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Follow-up sent to 1 contact');
  await expect(balanceBubble(page)).toHaveText('Balance: 2');

  const followUp = (await jobsOf(request, token, user.id)).find((j) => j.id !== jobId);
  expect(followUp?.progress.total).toBe(1);
  const details = await request.get(`/api/message-jobs-details/${followUp!.id}`, { headers });
  const body = (await details.json()) as { job: { details: { chatId: string }[]; messageContent?: string } };
  expect(body.job.details.map((d) => d.chatId)).toEqual([`${REPLIES}@s.whatsapp.net`]);
});
