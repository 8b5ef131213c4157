import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messageJobRecipients, waGroups } from '../../src/db/schema.ts';
import { balanceOf, jobRow, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * The "done means", through the real engine: account runner, simulator transport and
 * dispatcher, driven only through the HTTP API.
 */
describe.each(DB_KINDS)('messaging through the engine and the simulator on %s', (kind) => {
  const users = new Set<string>();
  const _phone = 919_600_000_001;
  const { t } = appWithEngine(kind, { SIMULATOR_SEND_LATENCY_MS: '5', SIMULATOR_GROUPS: '6' }, users);

  async function account(credits: number) {
    const { user, token, accountId } = await linkedAccount(t, { credits, track: users });
    const groups = await waitFor('groups cached', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
      return rows.length === 6 ? rows : null;
    });
    return { user, token, sessionId: accountId, groups };
  }

  const post = (token: string, url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  const outbox = async (token: string, accountId: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/simulator/sessions/${accountId}/outbox?limit=5000`,
        headers: bearer(token),
      })
    ).json().messages as Array<{ chatId: string; type: string; caption: string | null; mime: string | null }>;

  it('sends text, media and poll to groups and numbers; the balance moves by exactly the sent count', async () => {
    const { user, token, sessionId: accountId, groups } = await account(100);
    const announce = groups.find((g) => g.announce && !g.isAdmin)!;
    const open = groups.filter((g) => !g.announce);
    const base = `/api/session/${accountId}`;

    const text = await post(token, `${base}/sendBulkMessage`, {
      chatIds: [...open.map((g) => g.groupId), announce.groupId],
      type: 'string',
      content: 'Hello groups',
    });
    expect(text.statusCode).toBe(200);
    const textJob = await waitForJobEnd(t.app, token, text.json().jobId);
    expect(textJob.status).toBe('failed');
    expect(textJob.results).toMatchObject({ success: open.length, failed: 1 });
    const failedRow = (await recipientsOf(t.db, textJob.id)).find((r) => r.status === 'failed')!;
    expect(failedRow).toMatchObject({ chatId: announce.groupId, chatName: announce.subject });
    expect(failedRow.error).toMatch(/admins/i);

    const media = await post(token, `${base}/sendIndividualMessage`, {
      chatIds: ['919812340002', '919812340000'],
      content: 'A picture',
      mime: 'image/webp',
      data: Buffer.from('not really a webp').toString('base64'),
    });
    const mediaJob = await waitForJobEnd(t.app, token, media.json().jobId);
    expect(mediaJob.results).toMatchObject({ success: 1, failed: 1 });

    const poll = await post(token, `${base}/sendBulkMessage`, {
      chatIds: [open[0]!.groupId],
      type: 'poll',
      content: {
        pollName: 'Lunch?',
        pollOptions: ['Yes', 'No', ''],
        options: { allowMultipleAnswers: false },
      },
    });
    const pollJob = await waitForJobEnd(t.app, token, poll.json().jobId);
    expect(pollJob.status).toBe('completed');
    expect(JSON.parse(pollJob.messageContent)).toEqual({
      pollName: 'Lunch?',
      pollOptions: ['Yes', 'No'],
      options: { allowMultipleAnswers: false },
    });

    const sentMessages = await outbox(token, accountId);
    const sentCount = open.length + 1 + 1;
    expect(sentMessages.length).toBe(sentCount);
    expect(new Set(sentMessages.map((m) => `${m.type}:${m.chatId}`)).size).toBe(sentCount);
    const picture = sentMessages.find((m) => m.type === 'media')!;
    expect(picture).toMatchObject({
      chatId: '919812340002@s.whatsapp.net',
      mime: 'image/jpeg',
      caption: 'A picture',
    });
    expect(await balanceOf(t.db, user.id)).toBe(100 - sentCount);

    // The simulator delivers after about a second: the dashboard shows it.
    const dash = await waitFor('delivery receipts', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/dashboard?sessionId=${accountId}`,
        headers: bearer(token),
      });
      const body = res.json();
      return body.delivered === sentCount ? body : null;
    });
    expect(dash).toMatchObject({ totalGroups: 6, messagesSent: sentCount, deliveryRate: 100 });
    expect(dash.totalMembers).toBe(groups.reduce((n, g) => n + g.participants.length, 0));
    expect(dash.recentJobs.map((j: { id: string }) => j.id)).toEqual([pollJob.id, mediaJob.id, textJob.id]);
  });

  it('schedules a send a moment ahead: scheduled, then sent on time', async () => {
    const { token, sessionId: accountId } = await account(10);
    const at = new Date(Date.now() + 1500);
    const res = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: ['919812350001'],
      content: 'Later',
      scheduleTime: at.toISOString(),
    });
    expect(res.json().message).toMatch(/^Message scheduled for 1 contact/);
    expect((await jobRow(t.db, res.json().jobId))!.status).toBe('scheduled');
    const job = await waitForJobEnd(t.app, token, res.json().jobId);
    expect(job.status).toBe('completed');
    const [r] = await recipientsOf(t.db, job.id);
    expect(r!.sentAt!.getTime()).toBeGreaterThanOrEqual(at.getTime());
    expect(r!.sentAt!.getTime() - at.getTime()).toBeLessThan(1000);
  });

  it('holds recipients through a dropped connection and sends each exactly once after it returns', async () => {
    // 120: the drop comes after 20 sends, with 100 left to hold and send after it (300 took 18 s on PGlite).
    const n = 120;
    const { user, token, sessionId: accountId } = await account(n);
    const numbers = Array.from({ length: n }, (_, i) => String(919_812_360_001 + i));
    const res = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: numbers,
      content: 'Through a drop',
    });
    const jobId = res.json().jobId;
    await waitFor('some sent', async () => ((await jobRow(t.db, jobId))!.sentCount >= 20 ? true : null));
    const drop = await post(token, `/api/simulator/sessions/${accountId}/disconnect`, {});
    expect(drop.statusCode).toBe(200);
    // The connection dropped mid-job (the account shows it down while recipients were left).
    const sentAtDrop = await waitFor('the drop', async () => {
      const status = (
        await t.app.inject({ method: 'GET', url: `/api/${accountId}/status`, headers: bearer(token) })
      ).json();
      return status.connected ? null : { sent: (await jobRow(t.db, jobId))!.sentCount };
    });
    expect(sentAtDrop.sent).toBeLessThan(n);
    const job = await waitForJobEnd(t.app, token, jobId, 90_000);
    expect(job.status).toBe('completed');
    const chats = (await outbox(token, accountId)).map((m) => m.chatId);
    expect(chats.length).toBe(n);
    expect(new Set(chats).size).toBe(n);
    expect(await balanceOf(t.db, user.id)).toBe(0);
    const rows = await t.db.select().from(messageJobRecipients).where(eq(messageJobRecipients.jobId, jobId));
    expect(rows.every((r) => r.status === 'sent' && r.attempts >= 1)).toBe(true);
  });
});
