import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, waChannels, waGroups } from '../../src/db/schema.ts';
import { balanceOf, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount, OPEN_POLICY } from '../helpers.ts';
import { waitFor } from '../wait.ts';

type Channel = {
  channelId: string;
  name: string;
  description: string | null;
  followers: number;
  role: 'OWNER' | 'ADMIN';
  inviteLink: string | null;
};

describe.each(DB_KINDS)('channels API with the simulator on %s', (kind) => {
  const users = new Set<string>();
  const { t } = appWithEngine(kind, { SIMULATOR_GROUPS: '3' }, users);

  const call = (token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

  it('creates a channel, lists it with its followers, and refuses bad input', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 5, track: users });
    const empty = await call(token, 'GET', `/api/session/${accountId}/channels`);
    expect(empty.json()).toMatchObject({ success: true, channels: [], count: 0 });

    const created = await call(token, 'POST', `/api/session/${accountId}/channels`, {
      name: '  Daily Deals  ',
      description: 'Offers every morning',
    });
    expect(created.statusCode, created.body).toBe(200);
    const channel = created.json().channel as Channel;
    expect(created.json().message).toBe('Channel created');
    expect(channel).toMatchObject({
      name: 'Daily Deals',
      description: 'Offers every morning',
      followers: 0,
      role: 'OWNER',
    });
    expect(channel.channelId).toMatch(/^120363\d{12}@newsletter$/);
    expect(channel.inviteLink).toMatch(/^https:\/\/whatsapp\.com\/channel\/SIM\d{10}$/);

    const list = await call(token, 'GET', `/api/session/${accountId}/channels`);
    expect(list.json()).toMatchObject({ count: 1, message: '1 channel found' });
    expect(list.json().channels[0]).toMatchObject({ channelId: channel.channelId, followers: 0 });
    const rows = await t.db.select().from(waChannels).where(eq(waChannels.accountId, accountId));
    expect(rows.map((r) => [r.channelId, r.name, r.role])).toEqual([
      [channel.channelId, 'Daily Deals', 'OWNER'],
    ]);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.action, 'channel.create'));
    expect(audit.find((a) => a.actorId === user.id)?.details).toEqual({
      sessionId: accountId,
      channelId: channel.channelId,
      name: 'Daily Deals',
    });

    const blank = await call(token, 'POST', `/api/session/${accountId}/channels`, { name: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toBe('Channel name is required');
    const long = await call(token, 'POST', `/api/session/${accountId}/channels`, { name: 'x'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(long.json().message).toBe('Channel name can have at most 100 characters');
    expect(await t.db.select().from(waChannels).where(eq(waChannels.accountId, accountId))).toHaveLength(1);
  });

  it('adds an administered channel by its link, refuses one the account only follows, and refreshes', async () => {
    const { token, accountId } = await linkedAccount(t, { credits: 5, track: users });
    const added = await call(token, 'POST', `/api/session/${accountId}/channels/add`, {
      invite: 'https://whatsapp.com/channel/0029VaNews01',
    });
    expect(added.statusCode, added.body).toBe(200);
    const channel = added.json().channel as Channel;
    expect(channel).toMatchObject({ name: 'Channel 0029VaNews01', role: 'ADMIN' });
    expect(channel.followers).toBeGreaterThanOrEqual(100);

    const guest = await call(token, 'POST', `/api/session/${accountId}/channels/add`, {
      invite: 'guest-channel-1',
    });
    expect(guest.statusCode).toBe(400);
    expect(guest.json().message).toBe('This account is not an admin of that channel');
    const bad = await call(token, 'POST', `/api/session/${accountId}/channels/add`, {
      invite: 'https://example.com/x',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Give the channel link (https://whatsapp.com/channel/…) or its code');

    // A channel the account no longer administers (WhatsApp has it no more) leaves the list on a refresh.
    await t.db.insert(waChannels).values({
      accountId,
      channelId: '120363999999999999@newsletter',
      name: 'Gone',
      role: 'ADMIN',
    });
    const refreshed = await call(token, 'POST', `/api/session/${accountId}/channels/refresh`);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json().channels.map((c: Channel) => [c.channelId, c.followers])).toEqual([
      [channel.channelId, channel.followers],
    ]);
  });

  it('posts to a channel as a job of one recipient and one credit, beside a group', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 5, track: users });
    const channel = (
      await call(token, 'POST', `/api/session/${accountId}/channels`, { name: 'Offers' })
    ).json().channel as Channel;
    const post = await call(token, 'POST', `/api/session/${accountId}/sendBulkMessage`, {
      chatIds: [channel.channelId],
      type: 'poll',
      content: {
        pollName: 'Which offer?',
        pollOptions: ['Tea', 'Coffee'],
        options: { allowMultipleAnswers: false },
      },
    });
    expect(post.statusCode, post.body).toBe(200);
    expect(post.json()).toMatchObject({ totalChats: 1, message: 'Message sending initiated for 1 channel' });
    const job = await waitForJobEnd(t.app, token, post.json().jobId);
    expect(job.status).toBe('completed');
    const [r] = await recipientsOf(t.db, post.json().jobId);
    expect(r).toMatchObject({ chatId: channel.channelId, chatName: 'Offers', status: 'sent' });
    expect(await balanceOf(t.db, user.id)).toBe(4);
    const outbox = await call(token, 'GET', `/api/simulator/sessions/${accountId}/outbox`);
    expect(outbox.json().messages.at(-1)).toMatchObject({
      chatId: channel.channelId,
      type: 'poll',
      poll: { name: 'Which offer?', options: ['Tea', 'Coffee'], allowMultipleAnswers: false },
    });

    const group = await waitFor('groups cached', async () => {
      const [g] = await t.db
        .select()
        .from(waGroups)
        .where(and(eq(waGroups.accountId, accountId), eq(waGroups.announce, false)));
      return g;
    });
    const both = await call(token, 'POST', `/api/session/${accountId}/sendBulkMessage`, {
      chatIds: [group.groupId, channel.channelId],
      type: 'string',
      content: 'Hello {{group}}',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(both.statusCode, both.body).toBe(200);
    expect(both.json().message).toMatch(/^Message scheduled for 2 groups and channels at /);
    const rows = await recipientsOf(t.db, both.json().jobId);
    expect(rows.map((x) => [x.chatId, x.status, x.content])).toEqual(
      expect.arrayContaining([
        [group.groupId, 'queued', `Hello ${group.subject}`],
        [channel.channelId, 'queued', 'Hello Offers'],
      ]),
    );
    expect(await balanceOf(t.db, user.id)).toBe(2);

    // A channel the account did not create or add is no recipient: nothing reserved.
    const stranger = await call(token, 'POST', `/api/session/${accountId}/sendBulkMessage`, {
      chatIds: ['120363111111111111@newsletter'],
      type: 'string',
      content: 'x',
    });
    expect(stranger.statusCode).toBe(400);
    expect(stranger.json().message).toBe('Not a channel of this account: 120363111111111111@newsletter');
    expect(await balanceOf(t.db, user.id)).toBe(2);
  });

  it('goes while new one-to-one chats wait at the new-contact cap: a channel is no one-to-one chat', async () => {
    const { token, accountId } = await linkedAccount(t, { credits: 5, track: users });
    const policy = await call(token, 'PUT', `/api/session/${accountId}/policy`, {
      ...OPEN_POLICY,
      newContactsPerDay: 1,
    });
    expect(policy.statusCode, policy.body).toBe(200);
    const numbers = await call(token, 'POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: ['919650007001', '919650007002'],
      content: 'Hello',
    });
    const numbersJob = numbers.json().jobId as string;
    await waitFor('the cap to hold the second number', async () => {
      const rows = await recipientsOf(t.db, numbersJob);
      return rows.filter((r) => r.status === 'sent').length === 1 && rows.some((r) => r.status === 'queued')
        ? rows
        : null;
    });
    const channel = (
      await call(token, 'POST', `/api/session/${accountId}/channels`, { name: 'Capped' })
    ).json().channel as Channel;
    const post = await call(token, 'POST', `/api/session/${accountId}/sendBulkMessage`, {
      chatIds: [channel.channelId],
      type: 'string',
      content: 'New stock today',
    });
    expect(post.statusCode, post.body).toBe(200);
    expect((await waitForJobEnd(t.app, token, post.json().jobId)).status).toBe('completed');
    // The second number still waits for tomorrow.
    expect((await recipientsOf(t.db, numbersJob)).map((r) => r.status).sort()).toEqual(['queued', 'sent']);
  });
});
