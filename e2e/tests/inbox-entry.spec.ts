import { expect, signInAsAdmin, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import { openJobDetails, replyOnceDelivered, sendIndividual } from './support/jobs.ts';

/**
 * The simulator's contacts (server/src/transport/simulator): 919844420002 confirms delivery and
 * reads; 919844420003 confirms delivery and writes back.
 */
const READS = '919844420002';
const REPLIES = '919844420003';

test("Replies in Job Details opens the Inbox with that job's replies only", async ({ page, request }) => {
  test.setTimeout(90_000);
  const { user, sessionId: accountId, token } = await userWithAccount(page, request, { credits: 5 });
  const who = { token, userId: user.id, sessionId: accountId };
  const sale = await sendIndividual(request, token, accountId, { chatIds: [READS], content: 'Sale today' });
  await replyOnceDelivered(request, who, { id: sale, delivered: 1 }, { from: READS, text: 'Which sizes?' });
  const other = await sendIndividual(request, token, accountId, { chatIds: [REPLIES], content: 'New stock' });
  await replyOnceDelivered(request, who, { id: other, delivered: 1 }, { from: REPLIES, text: 'Any blue?' });

  const details = await openJobDetails(page, sale);
  await details.getByRole('link', { name: 'Replies' }).click();
  await expect(page).toHaveURL(new RegExp(`#/inbox\\?jobId=${sale}$`));
  await expect(page.getByText(`Replies to job ${sale.slice(0, 8)}`)).toBeVisible();
  const conversations = page.getByRole('table', { name: 'Conversations' });
  await expect(conversations.getByRole('row', { name: new RegExp(READS) })).toContainText('Which sizes?');
  await expect(conversations.getByRole('row', { name: new RegExp(REPLIES) })).toHaveCount(0);

  // Every job's replies again: the other person's conversation is there too.
  await page.getByRole('button', { name: 'Show replies to every job' }).click();
  await expect(conversations.getByRole('row', { name: new RegExp(REPLIES) })).toContainText('Any blue?');
});

test("an admin opens a managed user's inbox read-only: the messages, no answer box, no state buttons", async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const { user, sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 2 });
  const inbound = await request.post(`/api/simulator/sessions/${accountId}/inbound`, {
    headers,
    data: { from: '919844430051', text: 'Is the shop open on Sunday?' },
  });
  expect(inbound.ok(), await inbound.text()).toBe(true);

  const admin = await page.context().newPage();
  await signInAsAdmin(admin, request);
  await admin.goto('/#/adminDashboard');
  await expect(admin.getByRole('table', { name: 'Users overview' })).toContainText(user.username);
  await admin.getByRole('combobox', { name: 'User' }).click();
  await admin.getByRole('option', { name: `${user.name} (${user.username})`, exact: true }).click();
  await admin.getByRole('tab', { name: 'Inbox' }).click();
  const row = admin.getByRole('table', { name: 'Conversations' }).getByRole('row', { name: /919844430051/ });
  await expect(row).toContainText('Is the shop open on Sunday?');
  await row.getByRole('button', { name: '919844430051' }).click();
  await expect(
    admin.getByRole('list', { name: 'Messages' }).getByRole('listitem', { name: 'Received' }),
  ).toContainText('Is the shop open on Sunday?');
  await expect(admin.getByText("A managed user's inbox is read-only")).toBeVisible();
  await expect(admin.getByRole('region', { name: 'Answer' })).toHaveCount(0);
  await expect(admin.getByRole('textbox', { name: 'Answer' })).toHaveCount(0);
  await expect(admin.getByRole('button', { name: 'Mark done' })).toHaveCount(0);
  await expect(admin.getByRole('button', { name: 'Reopen' })).toHaveCount(0);

  // Reading it changed nothing for the user: still unread, still open.
  const own = await request.get('/api/inbox', { headers });
  expect(((await own.json()) as { threads: { unread: number; state: string }[] }).threads).toMatchObject([
    { unread: 1, state: 'open' },
  ]);
});
