import { expect, test } from '../fixtures.ts';
import { balanceBubble, userWithAccount } from './messaging-helpers.ts';
import { jobsOf } from './support/jobs.ts';

test('an auto-reply rule set in Account settings answers a matching message once, charged, and shows in Message Jobs', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { user, sessionId: accountId, token, headers } = await userWithAccount(page, request, { credits: 3 });
  await page.goto('/#/instances');
  await page.getByRole('button', { name: /^Account settings / }).click();
  const section = page.getByRole('dialog').getByRole('region', { name: 'Auto-replies' });
  await section.getByRole('button', { name: 'Add rule' }).click();
  const rule = section.getByRole('group', { name: 'Rule 1' });
  // STOP stays the opt-out: it cannot be a keyword.
  await rule.getByRole('textbox', { name: 'Keyword' }).fill('stop');
  await rule.getByRole('textbox', { name: 'Reply' }).fill('Our prices: ₹499 and ₹999');
  await section.getByRole('button', { name: 'Save auto-replies' }).click();
  await expect(section.getByRole('alert')).toHaveText(
    '“stop” is an opt-out word: it opts the sender out and cannot be an auto-reply keyword',
  );
  await rule.getByRole('textbox', { name: 'Keyword' }).fill('दाम');
  await section.getByRole('button', { name: 'Save auto-replies' }).click();
  await expect(section.getByRole('status')).toHaveText('Saved 1 auto-reply rule');
  await page.keyboard.press('Escape');

  const write = async (text: string, from = '919844430002') => {
    const res = await request.post(`/api/simulator/sessions/${accountId}/inbound`, {
      headers,
      data: { from, text },
    });
    expect(res.ok(), await res.text()).toBe(true);
  };
  await write('इसका दाम क्या है?');
  await expect.poll(async () => (await jobsOf(request, token, user.id)).length, { timeout: 30_000 }).toBe(1);
  // Asked again the same day: not answered again.
  await write('दाम?');
  await page.goto('/#/jobs');
  const row = page
    .getByRole('table', { name: 'Message jobs' })
    .getByRole('row')
    .filter({ hasText: 'Our prices' });
  await expect(row).toHaveCount(1);
  await expect(balanceBubble(page)).toHaveText('Balance: 2');
  expect((await jobsOf(request, token, user.id)).length).toBe(1);
});
