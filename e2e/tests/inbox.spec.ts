import type { APIRequestContext, Page } from '@playwright/test';
import { createUser, expect, signInByStorage, test } from '../fixtures.ts';
import { balanceBubble, userWithAccount } from './messaging-helpers.ts';
import { seriousViolations, violationsWithOpen } from './support/axe.ts';
import { cloudInbound, connectCloudNumber } from './support/cloud.ts';

/** A person who is in none of the simulator's scripted roles: they write only when a test says so. */
const ASHA = '919844430021';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main navigation' });
const conversations = (page: Page) => page.getByRole('table', { name: 'Conversations' });

async function write(
  request: APIRequestContext,
  headers: Record<string, string>,
  accountId: string,
  text: string,
) {
  const res = await request.post(`/api/simulator/sessions/${accountId}/inbound`, {
    headers,
    data: { from: ASHA, text },
  });
  expect(res.ok(), await res.text()).toBe(true);
}

test('a reply arrives in the Inbox with the unread count in the sidebar; the answer is charged and shows in the thread; done, then reopened by a new message', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 3 });
  await write(request, headers, accountId, 'Do you have red sarees?');

  await page.goto('/#/inbox');
  await expect(nav(page).getByRole('link', { name: 'Inbox 1 unread' })).toBeVisible();
  const row = conversations(page).getByRole('row', { name: new RegExp(ASHA) });
  await expect(row).toContainText('Do you have red sarees?');
  await expect(row).toContainText('1 unread');
  await expect(row).toContainText('Open');
  expect(await seriousViolations(page)).toEqual([]);

  await row.getByRole('button', { name: ASHA }).click();
  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages.getByRole('listitem', { name: 'Received' })).toContainText('Do you have red sarees?');
  // Opened: read, and the sidebar says so.
  await expect(nav(page).getByRole('link', { name: 'Inbox', exact: true })).toBeVisible();

  const answer = page.getByRole('region', { name: 'Answer' });
  await answer.getByRole('textbox', { name: 'Answer' }).fill('Yes, from ₹999');
  await answer.getByRole('button', { name: 'Send answer' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm answer' });
  await expect(confirm).toContainText('1 recipient · 1 credit · balance after 2');
  expect(await violationsWithOpen(confirm)).toEqual([]);
  await confirm.getByRole('button', { name: 'Send answer' }).click();
  await expect(answer.getByRole('status')).toHaveText(/^Answer sent \(job .+\) · 1 credit$/);
  await expect(balanceBubble(page)).toHaveText('Balance: 2');
  await expect(messages.getByRole('listitem', { name: 'Sent' })).toContainText('Yes, from ₹999', {
    timeout: 20_000,
  });

  await page.getByRole('button', { name: 'Mark done' }).click();
  await expect(page.getByRole('button', { name: 'Reopen' })).toBeVisible();
  await page.getByRole('button', { name: 'Back to conversations' }).click();
  await expect(row).toContainText('Done');
  await expect(row).toContainText('You: Yes, from ₹999');

  // A new message from the person opens the thread again.
  await write(request, headers, accountId, 'Can you send photos?');
  await page.reload();
  await expect(row).toContainText('Can you send photos?');
  await expect(row).toContainText('Open');
  await expect(nav(page).getByRole('link', { name: 'Inbox 1 unread' })).toBeVisible();
});

test('a Cloud number whose 24-hour window has closed offers only approved templates', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const user = await createUser(request, { credits: 5 });
  const account = await connectCloudNumber(request, user, 'Cloud desk');
  // Ravi wrote 25 hours ago (Meta's webhook came late): the window closed an hour ago.
  await cloudInbound(request, account, {
    from: '919844430031',
    name: 'Ravi',
    text: 'Is the blue one in stock?',
    at: new Date(Date.now() - 25 * 3_600_000),
  });

  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/inbox');
  const row = conversations(page).getByRole('row', { name: /Ravi/ });
  await expect(row).toContainText('Window closed');
  await row.getByRole('button', { name: 'Ravi' }).click();
  const answer = page.getByRole('region', { name: 'Answer' });
  await expect(answer).toContainText(
    'The 24-hour window of this Cloud number has closed: answer with an approved template',
  );
  await expect(answer.getByRole('textbox', { name: 'Answer' })).toHaveCount(0);
  await expect(answer.getByRole('button', { name: 'Attach a file' })).toHaveCount(0);
  await answer.getByRole('combobox', { name: 'Template' }).click();
  await expect(page.getByRole('option', { name: 'order_update (en_US, utility)' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});
