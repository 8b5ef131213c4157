import { expect, test } from '../fixtures.ts';
import { balanceBubble, ledger, localInputValue, userWithSession } from './messaging-helpers.ts';
import { sendIndividual } from './support/jobs.ts';

// A scheduled job that has not started can be edited (time, text, recipients);
// the credits held follow the recipients, each change a ledger row.
for (const size of [
  { width: 1280, height: 800, more: true },
  { width: 360, height: 740, more: false },
]) {
  test(`Edit on a scheduled job at ${size.width} px: new time, text and ${size.more ? 'more' : 'fewer'} recipients, credits adjusted`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    const { user, sessionId, token, headers } = await userWithSession(page, request, { credits: 10 });
    const jobId = await sendIndividual(request, token, sessionId, {
      chatIds: ['919822210001', '919822210002', '919822210003'],
      content: 'Old text',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await page.goto('/#/jobs');
    await expect(balanceBubble(page)).toHaveText('Balance: 7');
    const jobs =
      size.width > 400
        ? page.getByRole('table', { name: 'Message jobs' }).getByRole('row')
        : page.getByRole('list', { name: 'Message jobs' }).getByRole('listitem');
    await jobs
      .filter({ hasText: jobId.slice(0, 8) })
      .getByRole('button', { name: 'Edit' })
      .click();

    const dialog = page.getByRole('dialog', { name: 'Edit job' });
    await expect(dialog.getByLabel('Message')).toHaveValue('Old text');
    const numbers = dialog.getByLabel('Phone numbers (one a line)');
    await expect(numbers).toHaveValue('919822210001\n919822210002\n919822210003');
    const at = new Date(Date.now() + 2 * 3_600_000);
    at.setSeconds(0, 0);
    await dialog.getByLabel('Send at').fill(localInputValue(at));
    await dialog.getByLabel('Message').fill('New text');
    const after = size.more
      ? ['919822210001', '919822210002', '919822210003', '919822210004', '919822210005']
      : ['919822210002'];
    await numbers.fill(after.join('\n'));
    await expect(dialog.getByRole('status')).toHaveText(
      size.more
        ? '5 recipients · 2 credits more will be charged now'
        : '1 recipient · 2 credits will be refunded now',
    );
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByText(`Job updated: ${after.length} recipients`)).toBeVisible();
    await expect(balanceBubble(page)).toHaveText(`Balance: ${size.more ? 5 : 9}`);

    const res = await request.get(`/api/message-jobs-details/${jobId}`, { headers });
    const job = (await res.json()).job as {
      messageContent: string;
      status: string;
      scheduledTime: string;
      details: { chatId: string }[];
    };
    expect(job.messageContent).toBe('New text');
    expect(job.status).toBe('scheduled');
    expect(new Date(job.scheduledTime).getTime()).toBe(at.getTime());
    expect(job.details.map((d) => d.chatId.split('@')[0])).toEqual(after);
    // Newest first: the edit's row above the send's.
    const rows = (await ledger(request, user.id)).filter((e) => e.jobId === jobId);
    expect(rows.map((e) => [e.reason, e.delta])).toEqual(
      size.more
        ? [
            ['send', -2],
            ['send', -3],
          ]
        : [
            ['refund', 2],
            ['send', -3],
          ],
    );
  });
}
