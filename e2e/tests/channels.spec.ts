import { apiLogin, expect, linkedUserForFile, test } from '../fixtures.ts';
import { violationsWithOpen } from './support/axe.ts';

/** Channels through the simulator: create, add by link, post now and scheduled. */
test.describe('Channels', () => {
  // A post takes a credit: it is confirmed like every charge.
  test.use({ confirmSends: true });
  const shared = linkedUserForFile({ credits: 5, phoneNumber: '919811100301' });

  test('creates and adds channels, lists their followers, and posts to one now and at a time', async ({
    page,
    request,
  }) => {
    await shared.signIn(page, request);
    // The page's own notice (the demo banner is a status too, outside the page).
    const notice = page.getByRole('main').getByRole('status');
    await page.goto('/#/dashboard');
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Channels' })
      .click();
    await expect(page.getByRole('heading', { name: 'Channels', exact: true })).toBeVisible();
    await expect(
      page.getByText('No channels yet: create one, or add one this account administers by its link'),
    ).toBeVisible();

    await page.getByRole('button', { name: 'Create channel' }).click();
    const create = page.getByRole('dialog', { name: 'Create channel' });
    await create.getByLabel('Channel name').fill('Daily Deals');
    await create.getByLabel('Description').fill('Offers every morning');
    await create.getByRole('button', { name: 'Create' }).click();
    await expect(notice).toHaveText('Channel created: Daily Deals');
    const deals = page.getByRole('listitem', { name: 'Daily Deals' });
    await expect(deals).toContainText('Owner');
    await expect(deals).toContainText('0 followers');

    await page.getByRole('button', { name: 'Add channel' }).click();
    const add = page.getByRole('dialog', { name: 'Add channel' });
    await add.getByLabel('Channel link').fill('https://whatsapp.com/channel/guest-only-channel');
    await add.getByRole('button', { name: 'Add' }).click();
    await expect(add.getByRole('alert')).toHaveText('This account is not an admin of that channel');
    await add.getByLabel('Channel link').fill('https://whatsapp.com/channel/0029VaNews01');
    await add.getByRole('button', { name: 'Add' }).click();
    await expect(notice).toHaveText('Channel added: Channel 0029VaNews01');

    // The follower count the page shows is the one the server holds.
    const { token } = await apiLogin(request, shared.user.username, shared.user.password);
    const headers = { authorization: `Bearer ${token}` };
    const listed = (await (
      await request.get(`/api/session/${shared.sessionId}/channels`, { headers })
    ).json()) as {
      channels: { channelId: string; name: string; followers: number }[];
    };
    const news = listed.channels.find((c) => c.name === 'Channel 0029VaNews01')!;
    expect(news.followers).toBeGreaterThanOrEqual(100);
    await expect(page.getByRole('listitem', { name: 'Channel 0029VaNews01' })).toContainText(
      `${new Intl.NumberFormat('en-IN').format(news.followers)} followers`,
    );

    await deals.getByRole('button', { name: 'Post to Daily Deals' }).click();
    const post = page.getByRole('dialog', { name: 'Post to Daily Deals' });
    await post.getByLabel('Message').fill('Good morning, today only: 20% off');
    await post.getByRole('button', { name: 'Post now (1 credit)' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm post to Daily Deals' });
    expect(await violationsWithOpen(confirm)).toEqual([]);
    await expect(confirm).toContainText('1 recipient · 1 credit · balance after 4');
    await expect(confirm).toContainText('Linked phone: 1 × 1 credit = 1 credit');
    await expect(confirm).toContainText('It goes now, as one post');
    await confirm.getByRole('button', { name: 'Post now' }).click();
    await expect(notice).toHaveText('Message sending initiated for 1 channel');
    const deal = listed.channels.find((c) => c.name === 'Daily Deals')!;
    await expect
      .poll(async () => {
        const outbox = (await (
          await request.get(`/api/simulator/sessions/${shared.sessionId}/outbox`, { headers })
        ).json()) as { messages: { chatId: string; text: string | null }[] };
        return outbox.messages.filter((m) => m.chatId === deal.channelId).map((m) => m.text);
      })
      .toEqual(['Good morning, today only: 20% off']);

    await page
      .getByRole('listitem', { name: 'Channel 0029VaNews01' })
      .getByRole('button', { name: /^Post to/ })
      .click();
    const poll = page.getByRole('dialog', { name: 'Post to Channel 0029VaNews01' });
    await poll.getByText('Poll', { exact: true }).click();
    await expect(poll.getByRole('radio', { name: 'Poll' })).toBeChecked();
    await poll.getByLabel('Question').fill('Tea or coffee?');
    await poll.getByLabel('Options (one a line)').fill('Tea\nCoffee');
    await poll.getByLabel('Schedule (optional)').fill('31/12/2030, 09:30 am');
    await poll.getByLabel('Schedule (optional)').press('Tab');
    await poll.getByRole('button', { name: 'Schedule post (1 credit)' }).click();
    const scheduled = page.getByRole('dialog', { name: 'Confirm post to Channel 0029VaNews01' });
    await expect(scheduled).toContainText('balance after 3');
    await expect(scheduled).toContainText(/Starts .*2030.*\. It goes then, as one post/);
    await scheduled.getByRole('button', { name: 'Schedule post' }).click();
    await expect(notice).toContainText('Message scheduled for 1 channel at 2030-12-31T');
    // Group Messaging's picker lists the channels after the groups.
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Group Messaging' })
      .click();
    await expect(page.getByText('Daily Deals (Channel)')).toBeVisible();

    // Two posts, one credit each.
    const again = await apiLogin(request, shared.user.username, shared.user.password);
    expect((again.user.credits as { user_credits: number }).user_credits).toBe(3);
  });
});
