import { apiLogin, createUser, expect, signInByStorage, test } from '../fixtures.ts';

// A new user is led to link WhatsApp first, told how to get credits, and can
// try a webhook before a real event.

test('a new user with no linked WhatsApp and no credits is led to Instances and told to ask the admin', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { credits: 0, bulk: true });
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/dashboard');
  const notice = page.getByRole('status', { name: 'No linked WhatsApp' });
  await expect(notice).toContainText('No active session found. Please connect WhatsApp first.');
  await expect(
    page.getByText(
      'You have no credits: each recipient costs one. Ask your admin to add credits to your account.',
    ),
  ).toBeVisible();
  await notice.getByRole('link', { name: 'Link WhatsApp in Instances' }).click();
  await expect(page).toHaveURL(/#\/instances$/);
  await expect(page.getByRole('button', { name: 'ADD NEW' })).toBeVisible();

  // Every 'No active session found' leads there in one click.
  for (const path of ['/compose', '/bulkmessage', '/groups']) {
    await page.goto(`/#${path}`);
    const there = page.getByRole('status', { name: 'No linked WhatsApp' });
    await expect(there, path).toContainText('No active session found');
    await there.getByRole('link', { name: 'Link WhatsApp in Instances' }).click();
    await expect(page, path).toHaveURL(/#\/instances$/);
  }
});

test('a webhook can be sent a test event, and the page says how it went', async ({ page, request }) => {
  const user = await createUser(request, { credits: 0 });
  const { token } = await apiLogin(request, user.username, user.password);
  // A public address nothing listens on from here: the test call fails, and says so.
  const res = await request.post('/api/webhooks', {
    headers: { authorization: `Bearer ${token}` },
    data: { url: 'https://93.184.216.34:9/wa-events', events: ['optout'] },
  });
  expect(res.ok(), await res.text()).toBe(true);
  await signInByStorage(page, request, user.username, user.password);
  await page.goto('/#/webhooks');
  const card = page.getByRole('region', { name: 'Webhook https://93.184.216.34:9/wa-events' });
  await card.getByRole('button', { name: 'Send test event' }).click();
  await expect(card.getByRole('status')).toHaveText(/^Test event not delivered: .+/, { timeout: 10_000 });
});
