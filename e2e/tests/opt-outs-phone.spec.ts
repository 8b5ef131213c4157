import { expect, saveScreenshot, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import { seriousViolations } from './support/axe.ts';
import { expectNoSidewaysScroll, PHONE } from './support/customer.ts';

test('the opt-out list at 360 px: one card a number with its source, message and date, and Remove in view', async ({
  page,
  request,
}) => {
  await page.setViewportSize(PHONE);
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  // One number replies 'बंद करो' (opted out by itself, with its words); the user adds another.
  const inbound = await request.post(`/api/simulator/sessions/${accountId}/inbound`, {
    headers,
    data: { from: '919800000191', text: 'बंद करो।' },
  });
  expect(inbound.ok(), await inbound.text()).toBe(true);
  const added = await request.post('/api/opt-outs', { headers, data: { phoneNumbers: ['9800000192'] } });
  expect(added.ok(), await added.text()).toBe(true);

  await page.goto('/#/contacts');
  const section = page.getByRole('region', { name: 'Opt-outs' });
  const list = section.getByRole('list', { name: 'Opt-out list' });
  const replied = list.getByRole('listitem').filter({ hasText: '919800000191' });
  const typed = list.getByRole('listitem').filter({ hasText: '919800000192' });
  await expect(replied).toBeVisible({ timeout: 15_000 });
  await expect(section.getByRole('table', { name: 'Opt-out list' })).toHaveCount(0);
  await expect(replied.getByText('Replied STOP', { exact: true })).toBeVisible();
  await expect(replied.getByText('बंद करो।', { exact: true })).toBeVisible();
  for (const field of ['Source', 'Message', 'Since'])
    await expect(replied.getByText(field, { exact: true })).toBeVisible();
  await expect(typed.getByText('Added by you', { exact: true })).toBeVisible();
  const remove = typed.getByRole('button', { name: 'Remove 919800000192 from opt-outs' });
  await remove.scrollIntoViewIfNeeded();
  await expect(remove).toBeInViewport({ ratio: 1 });
  await expectNoSidewaysScroll(list, PHONE.width);
  await saveScreenshot(page, 'opt-outs-360.png');
  expect(await seriousViolations(page)).toEqual([]);

  await remove.click();
  await expect(typed).toHaveCount(0);
  await expect(replied).toBeVisible();
});
