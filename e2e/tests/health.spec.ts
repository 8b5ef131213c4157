import { expect, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';

/** 25 numbers the simulator answers 'Not on WhatsApp' for (they end in 0000). */
const NOT_ON_WHATSAPP = Array.from({ length: 25 }, (_, i) => `9198${1000 + i}0000`);

test('Instances shows the account health; a sick account is paused to protect it, and paused again for longer after Resume sending', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 25 });
  await page.goto('/#/instances');
  const badge = page.getByLabel(/^Account health \d+ of 100/);
  await expect(badge).toHaveText('Health 100 · Good');

  const sent = await request.post(`/api/session/${accountId}/sendIndividualMessage`, {
    headers,
    data: { chatIds: NOT_ON_WHATSAPP, content: 'A scraped list' },
  });
  expect(sent.ok(), await sent.text()).toBe(true);

  // Every number looked up is not on WhatsApp: the node's next check (every 3 s here) pauses it.
  const reason = 'Paused to protect this account: 100% of the numbers looked up are not on WhatsApp';
  await expect(async () => {
    await page.reload();
    await expect(page.getByLabel('Account health 35 of 100: Paused')).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(badge).toHaveText('Health 35 · Paused');
  await expect(page.getByText(reason)).toBeVisible();
  await expect(page.getByText(/One-to-one sends wait until .*; group sends go on\./)).toBeVisible();
  if (process.env.SCREENSHOTS_DIR)
    await page.screenshot({
      path: `${process.env.SCREENSHOTS_DIR}/instances-paused-to-protect.png`,
      fullPage: true,
    });

  await page.getByRole('button', { name: /^Resume sending/ }).click();
  await expect(page.getByText('Sending resumed')).toBeVisible();
  // Resuming keeps the window's evidence: the next check pauses the account again, for longer.
  const again = `${reason}; paused again within a day, so for twice as long`;
  await expect(async () => {
    await page.reload();
    await expect(page.getByText(again)).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(badge).toHaveText('Health 35 · Paused');
  const health = await request.get(`/api/session/${accountId}/health`, { headers });
  expect(await health.json()).toMatchObject({ score: 35, state: 'paused', reason: again });
});
