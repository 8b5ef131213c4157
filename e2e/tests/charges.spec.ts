import { expect, test } from '../fixtures.ts';
import { balanceBubble, ledger, userWithAccount } from './messaging-helpers.ts';
import { violationsWithOpen } from './support/axe.ts';
import { failedJobRow, numbers, shot, uploadCsv } from './support/customer.ts';
import { bigSendOnWarmingAccount } from './support/policy.ts';

/**
 * Every action that takes credits asks first, with the same confirmation: recipients, credits per
 * kind of account, the balance after and when the last message will go (on a warming account,
 * the day, with the count of each day, and a way to send fewer). SHOTS_DIR saves its pictures.
 */
test.use({ timezoneId: 'Asia/Kolkata', locale: 'en-IN', confirmSends: true });

const day = (inDays: number) =>
  new Intl.DateTimeFormat('en-IN', {
    timeZone: 'Asia/Kolkata',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  }).format(new Date(Date.now() + inDays * 86_400_000));

test('a big send on a warming account says the day its last message goes, day by day, and sends fewer on request', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const u = await bigSendOnWarmingAccount(page, request);
  await expect(balanceBubble(page)).toHaveText('Balance: 196');
  // The page's forecast says the last day too, not only "from tomorrow".
  await expect(page.getByRole('status', { name: 'What the account will send' })).toHaveText(
    `46 today, the rest from tomorrow 00:00 (warm-up: 50 a day); the last expected on ${day(2)}`,
  );
  await page.getByRole('button', { name: 'Send Now' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm send' });
  await expect(confirm).toContainText('120 recipients · 120 credits · balance after 76');
  await expect(confirm).toContainText('Linked phone: 120 × 1 credit = 120 credits');
  await expect(confirm.getByRole('status', { name: 'When the last message goes' })).toContainText(
    `The last message is expected to go on ${day(2)} (warm-up: 50 a day)`,
  );
  await expect(confirm.getByRole('list', { name: 'Messages per day' }).getByRole('listitem')).toHaveText([
    'today: 46',
    `${day(1)}: 50`,
    `${day(2)}: 24`,
  ]);
  await shot(page, 101);
  // Fewer: only what goes today.
  await confirm.getByRole('button', { name: 'Only what goes today (46)' }).click();
  await expect(confirm).toContainText('46 recipients · 46 credits · balance after 150');
  await expect(confirm.getByRole('status', { name: 'When the last message goes' })).toHaveText(
    'All go now, one after another',
  );
  await expect(balanceBubble(page)).toHaveText('Balance: 196');
  await confirm.getByRole('button', { name: 'Send Now' }).click();
  // The balance follows the charge as soon as the job is accepted.
  await expect(balanceBubble(page)).toHaveText('Balance: 150');
  await expect(page.getByRole('status', { name: 'Status' })).toContainText('46 sent, 0 failed', {
    timeout: 30_000,
  });
  const sends = (await ledger(request, u.user.id)).filter((e) => e.reason === 'send').map((e) => e.delta);
  // Four earlier, then only the 46 chosen (the ledger lists newest first).
  expect(sends).toEqual([-46, -4]);
});

test('an uploaded number that opted out is marked in the list and left out of the confirmation', async ({
  page,
  request,
}) => {
  const u = await userWithAccount(page, request, { credits: 10 });
  const [a, b, c] = numbers(301, 3);
  const out = await request.post('/api/opt-outs', { headers: u.headers, data: { phoneNumbers: [b] } });
  expect(out.ok(), await out.text()).toBe(true);
  await page.goto('/#/bulkmessage');
  await uploadCsv(page, `phone\n${a}\n${b}\n${c}\n`);
  const table = page.getByRole('table', { name: 'Select Phone Numbers' });
  await expect(table.getByText(`${b} (opted out: not sent, not charged)`)).toBeVisible();
  await table.getByRole('checkbox', { name: 'Select All' }).check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Fresh stock');
  await page.getByRole('button', { name: 'Send Now' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm send' });
  await expect(confirm).toContainText('2 recipients · 2 credits · balance after 8');
  await expect(confirm).toContainText('1 opted-out ticked: left out, not charged.');
  await shot(page, 103);
  await confirm.getByRole('button', { name: 'Send Now' }).click();
  await expect(page.getByRole('status', { name: 'Status' })).toContainText('2 sent, 0 failed', {
    timeout: 30_000,
  });
  await expect(balanceBubble(page)).toHaveText('Balance: 8');
});

test('Retry Failed says what it takes and that the job goes back to sending, and takes nothing when cancelled', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const u = await userWithAccount(page, request, { credits: 10 });
  // 917040110001 times out on the simulated network: the job ends with one failure a retry may fix.
  const { row } = await failedJobRow(
    page,
    request,
    u,
    { chatIds: ['919800000021', '917040110001', '919800000022'], content: 'Your order is ready' },
    30_000,
  );
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).first().click();
    await expect(row.getByRole('button', { name: 'Retry Failed' })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(balanceBubble(page)).toHaveText('Balance: 8');
  await row.getByRole('button', { name: 'Retry Failed' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm retry' });
  expect(await violationsWithOpen(confirm)).toEqual([]);
  // The time-out may have reached the phone: nothing is sent again until the user accepts a copy.
  const copy = confirm.getByRole('checkbox', { name: /Also send again the 1 whose delivery is unknown/ });
  await expect(copy).not.toBeChecked();
  await expect(confirm).toContainText('0 recipients');
  await copy.check();
  await expect(confirm).toContainText('1 recipient · 1 credit · balance after 7');
  await expect(confirm).toContainText('The job goes back to sending');
  await expect(confirm.getByRole('status', { name: 'When the last message goes' })).toHaveText(
    'All go now, one after another',
  );
  await shot(page, 102);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  expect((await ledger(request, u.user.id)).filter((e) => e.reason === 'retry')).toEqual([]);

  await row.getByRole('button', { name: 'Retry Failed' }).click();
  await copy.check();
  await confirm.getByRole('button', { name: 'Retry Failed' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Retrying 1 failed message' })).toBeVisible();
  await expect
    .poll(async () =>
      (await ledger(request, u.user.id)).filter((e) => e.reason === 'retry').map((e) => e.delta),
    )
    .toEqual([-1]);
});
