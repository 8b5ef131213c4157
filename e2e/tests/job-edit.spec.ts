import { expect, saveScreenshot, test } from '../fixtures.ts';
import {
  ANNOUNCE_ONLY,
  balanceBubble,
  ledger,
  localInputValue,
  userWithAccount,
} from './messaging-helpers.ts';
import { seriousViolations, violationsWithOpen } from './support/axe.ts';
import { PNG_1X1, sendIndividual } from './support/jobs.ts';

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
    const {
      user,
      sessionId: accountId,
      token,
      headers,
    } = await userWithAccount(page, request, { credits: 10 });
    const jobId = await sendIndividual(request, token, accountId, {
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
    await dialog.getByLabel('Schedule time').fill(localInputValue(at));
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

test.describe('with the send confirmation on, as for a new user', () => {
  test.use({ confirmSends: true });

  test('an edit that adds recipients asks as a send does: the added ones, their credits, the balance after and when it goes; Cancel keeps the edit', async ({
    page,
    request,
  }) => {
    const { sessionId: accountId, token } = await userWithAccount(page, request, { credits: 10 });
    const jobId = await sendIndividual(request, token, accountId, {
      chatIds: ['919822210011', '919822210012', '919822210013'],
      content: 'Sale on Friday',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await page.goto('/#/jobs');
    await expect(balanceBubble(page)).toHaveText('Balance: 7');
    const row = page
      .getByRole('table', { name: 'Message jobs' })
      .getByRole('row')
      .filter({ hasText: jobId.slice(0, 8) });
    await row.getByRole('button', { name: 'Edit' }).click();

    const edit = page.getByRole('dialog', { name: 'Edit job' });
    const numbers = edit.getByLabel('Phone numbers (one a line)');
    await expect(numbers).toHaveValue('919822210011\n919822210012\n919822210013');
    const after = ['919822210011', '919822210012', '919822210013', '919822210014', '919822210015'];
    await numbers.fill(after.join('\n'));
    await edit.getByRole('button', { name: 'Save changes' }).click();

    // The confirmation takes the edit's place: one dialog at a time.
    const confirm = page.getByRole('dialog', { name: 'Confirm edit' });
    expect(await violationsWithOpen(confirm)).toEqual([]);
    await expect(confirm).toBeVisible();
    await expect(edit).toHaveCount(0);
    const cost = confirm.getByRole('group', { name: 'Cost' });
    await expect(cost).toContainText('2 recipients · 2 credits · balance after 5');
    await expect(cost).toContainText('Linked phone: 2 × 1 credit = 2 credits');
    await expect(cost).toContainText(
      'The job then goes to 5 recipients; the credits of the 3 it had are held already.',
    );
    await expect(confirm.getByRole('status', { name: 'When the last message goes' })).toContainText(
      'Starts ',
    );
    await saveScreenshot(page, 'edit-confirm.png');
    expect(await seriousViolations(page)).toEqual([]);

    // Cancel: back to the edit, with what was typed; nothing charged.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(edit.getByLabel('Phone numbers (one a line)')).toHaveValue(after.join('\n'));
    await expect(balanceBubble(page)).toHaveText('Balance: 7');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await confirm.getByRole('button', { name: 'Save changes' }).click();
    await expect(confirm).toHaveCount(0);
    await expect(page.getByText('Job updated: 5 recipients')).toBeVisible();
    await expect(balanceBubble(page)).toHaveText('Balance: 5');

    // Fewer recipients take nothing: saved without asking, the credit refunded.
    await row.getByRole('button', { name: 'Edit' }).click();
    await edit.getByLabel('Phone numbers (one a line)').fill(after.slice(0, 4).join('\n'));
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Job updated: 4 recipients')).toBeVisible();
    await expect(confirm).toHaveCount(0);
    await expect(balanceBubble(page)).toHaveText('Balance: 6');
  });
});

test('a scheduled group poll: groups picked by name, a new question and options; a media job takes another file', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, token, headers } = await userWithAccount(page, request, { credits: 10 });
  const listed = (await (await request.get(`/api/groupsList/${accountId}`, { headers })).json()) as {
    groups: { groupId: string; groupName: string }[];
  };
  const [first, second] = listed.groups.filter((g) => g.groupName !== ANNOUNCE_ONLY);
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const sent = await request.post(`/api/session/${accountId}/sendBulkMessage`, {
    headers,
    data: {
      chatIds: [first!.groupId],
      type: 'poll',
      content: { pollName: 'Lunch?', pollOptions: ['Rice', 'Roti'] },
      scheduleTime: later,
    },
  });
  expect(sent.ok(), await sent.text()).toBe(true);
  const pollJob = ((await sent.json()) as { jobId: string }).jobId;
  const fileJob = await sendIndividual(request, token, accountId, {
    chatIds: ['919822210021'],
    type: 'media',
    content: 'Menu',
    mime: 'image/png',
    data: PNG_1X1.toString('base64'),
    fileName: 'menu.png',
    scheduleTime: later,
  });

  await page.goto('/#/jobs');
  const rows = page.getByRole('table', { name: 'Message jobs' }).getByRole('row');
  await rows
    .filter({ hasText: pollJob.slice(0, 8) })
    .getByRole('button', { name: 'Edit' })
    .click();
  const dialog = page.getByRole('dialog', { name: 'Edit job' });
  // The group is shown by its name, never by its id; another is found by typing its name.
  await expect(dialog.getByText(first!.groupName, { exact: true })).toBeVisible();
  await expect(dialog.getByText('@g.us')).toHaveCount(0);
  await dialog.getByLabel('Groups').fill(second!.groupName.slice(0, 6));
  await page.getByRole('option', { name: second!.groupName, exact: true }).click();
  await expect(dialog.getByRole('status')).toHaveText('2 recipients · 1 credit more will be charged now');
  await expect(dialog.getByLabel('Poll question')).toHaveValue('Lunch?');
  await dialog.getByLabel('Poll question').fill('Dinner?');
  await dialog.getByLabel('Options (one a line)').fill('Dal\nPaneer\nSalad');
  await dialog.getByLabel('Allow multiple answers').check();
  await expect(dialog.getByLabel('Schedule time')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText('Job updated: 2 recipients')).toBeVisible();
  const poll = (await (await request.get(`/api/message-jobs-details/${pollJob}`, { headers })).json())
    .job as {
    messageContent: string;
    details: { chatId: string }[];
  };
  expect(poll.details.map((d) => d.chatId)).toEqual([first!.groupId, second!.groupId]);
  expect(JSON.parse(poll.messageContent)).toEqual({
    pollName: 'Dinner?',
    pollOptions: ['Dal', 'Paneer', 'Salad'],
    options: { allowMultipleAnswers: true },
  });

  await rows
    .filter({ hasText: fileJob.slice(0, 8) })
    .getByRole('button', { name: 'Edit' })
    .click();
  await expect(dialog.getByText('menu.png', { exact: true })).toBeVisible();
  const chooser = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Replace file' }).click();
  await (await chooser).setFiles({
    name: 'menu-v2.png',
    mimeType: 'image/png',
    buffer: PNG_1X1,
  });
  await expect(dialog.getByText('menu-v2.png (replaces menu.png)')).toBeVisible();
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(dialog).toHaveCount(0);
  const file = (await (await request.get(`/api/message-jobs-details/${fileJob}`, { headers })).json())
    .job as {
    fileName: string;
    messageContent: string;
  };
  expect(file).toMatchObject({ fileName: 'menu-v2.png', messageContent: 'Menu' });
});
