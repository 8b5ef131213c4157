import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addCredits, debitCredits } from '../../src/credits/credits.ts';
import { creditLedger, messageJobs, waGroups } from '../../src/db/schema.ts';
import { connectedAccount, createAccount } from '../fakes/accounts.ts';
import { balanceOf, jobRow, recipientsOf, retryJob, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, buildUser, DB_KINDS, linkedAccount, loginToken } from '../helpers.ts';
import { waitFor } from '../wait.ts';

describe.each(DB_KINDS)('jobs API on %s', (kind) => {
  const users = new Set<string>();
  // Apart from linkedAccount's numbers (helpers.ts): one user may not link a number twice.
  let phone = 919_700_090_001;
  const { t } = appWithEngine(kind, { SESSION_WAIT_MS: '500', SIMULATOR_LINK_AFTER_MS: '3600000' }, users);

  /** A user with an account linked through the simulator (real runner and dispatcher). */
  async function account(credits: number, managedBy: string | null = null) {
    const { user, token, accountId } = await linkedAccount(t, { credits, managedBy, track: users });
    // The group route sends only to groups of the account's list: the simulator's, once cached.
    const groups = await waitFor('groups cached', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
      const open = rows.filter((g) => !g.announce).map((g) => g.groupId);
      return open.length >= 2 ? open : null;
    });
    return { user, token, sessionId: accountId, groups };
  }

  const get = (token: string, url: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });

  async function send(token: string, accountId: string, payload: object, path = 'sendBulkMessage') {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/${path}`,
      headers: bearer(token),
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().jobId as string;
  }

  it('lists a user’s jobs newest first with the spec fields, filters and paging', async () => {
    const { user, token, sessionId: accountId, groups } = await account(100);
    const first = await send(token, accountId, {
      chatIds: [groups[0]!, groups[1]!],
      type: 'string',
      content: 'one',
    });
    const second = await send(token, accountId, {
      chatIds: [groups[0]!],
      type: 'poll',
      content: { pollName: 'Q', pollOptions: ['a', 'b'], options: { allowMultipleAnswers: true } },
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const res = await get(token, `/api/message-jobs/${user.id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, total: 2, message: 'Jobs fetched successfully' });
    expect(body.jobs.map((j: { id: string }) => j.id)).toEqual([second, first]);
    const poll = body.jobs[0];
    expect(poll).toMatchObject({
      id: second,
      sessionId: accountId,
      messageType: 'poll',
      isScheduled: true,
      status: 'scheduled',
      progress: { completed: 0, total: 1, percentComplete: 0 },
      results: { success: 0, failed: 0 },
      elapsedTimeMs: 0,
    });
    expect(JSON.parse(poll.messageContent)).toEqual({
      pollName: 'Q',
      pollOptions: ['a', 'b'],
      options: { allowMultipleAnswers: true },
    });
    expect(typeof poll.createdAt).toBe('string');
    expect(typeof poll.scheduledTime).toBe('string');

    const scheduled = await get(token, `/api/message-jobs/${user.id}?status=scheduled`);
    expect(scheduled.json().jobs.map((j: { id: string }) => j.id)).toEqual([second]);
    const paged = await get(token, `/api/message-jobs/${user.id}?limit=1&offset=1`);
    expect(paged.json().jobs.map((j: { id: string }) => j.id)).toEqual([first]);
    expect(paged.json().total).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    const inRange = await get(token, `/api/message-jobs/${user.id}?from=${today}&to=${today}`);
    expect(inRange.json().total).toBe(2);
    const future = await get(token, `/api/message-jobs/${user.id}?from=2999-01-01`);
    expect(future.json()).toMatchObject({ total: 0, jobs: [] });
    const bad = await get(token, `/api/message-jobs/${user.id}?from=yesterday`);
    expect(bad.statusCode).toBe(400);
  });

  it('shows a job with media data, mime and per-recipient details', async () => {
    const { token, sessionId: accountId } = await account(10);
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const jobId = await send(
      token,
      accountId,
      {
        chatIds: ['919800002001', '919800000000'],
        content: 'pic',
        mime: 'image/png',
        data: png.toString('base64'),
      },
      'sendIndividualMessage',
    );
    await waitForJobEnd(t.app, token, jobId);
    const res = await get(token, `/api/message-jobs-details/${jobId}`);
    expect(res.statusCode).toBe(200);
    const { job } = res.json();
    expect(job).toMatchObject({
      id: jobId,
      messageType: 'media',
      mediaMime: 'image/png',
      mediaData: png.toString('base64'),
      messageContent: 'pic',
      status: 'failed',
      results: { success: 1, failed: 1 },
      detailsTotal: 2,
    });
    // A recipient row as Job Details shows it: nothing delivered, read or replied yet.
    const row = (chatName: string, fields: object) => ({
      chatName,
      chatId: `${chatName}@s.whatsapp.net`,
      deliveredAt: null,
      readAt: null,
      repliedAt: null,
      replyText: null,
      undeliveredAt: null,
      undeliveredReason: null,
      sentTo: null,
      sessionId: accountId,
      ...fields,
    });
    expect(job.details).toEqual([
      row('919800002001', { status: 'sent', sentAt: expect.any(String), error: null }),
      row('919800000000', { status: 'failed', sentAt: null, error: 'Not on WhatsApp' }),
    ]);
    const light = await get(token, `/api/message-jobs-details/${jobId}?detailsLimit=0&media=0`);
    expect(light.json().job).toMatchObject({ mediaData: null, details: [], detailsTotal: 2 });
  });

  it('retries failed recipients after reserving their credits; 402 when short; 400 with nothing to retry', async () => {
    const user = await buildUser(t, { credits: 4 });
    users.add(user.id);
    const token = await loginToken(t.app, user.username);
    // An account that is not linked yet: the recipients wait SESSION_WAIT_MS, then fail.
    phone += 1;
    const accountId = await createAccount(t, token, { phoneNumber: String(phone), sessionName: 'Later' });
    const jobId = await send(
      token,
      accountId,
      { chatIds: ['919800003001', '919800003002', '919800003003'], content: 'hi' },
      'sendIndividualMessage',
    );
    const failed = await waitForJobEnd(t.app, token, jobId);
    expect(failed.status).toBe('failed');
    expect(failed.results).toMatchObject({ success: 0, failed: 3 });
    expect((await recipientsOf(t.db, jobId)).map((r) => r.error)).toEqual(
      Array(3).fill('Session is not connected'),
    );
    expect(await balanceOf(t.db, user.id)).toBe(4);

    // Link the account through the simulator, as scanning the QR does.
    await waitFor('QR', async () => (await get(token, `/api/${accountId}/QR`)).statusCode === 200);
    const link = await t.app.inject({
      method: 'POST',
      url: `/api/simulator/sessions/${accountId}/link`,
      headers: bearer(token),
    });
    expect(link.statusCode).toBe(200);
    await waitFor(
      'CONNECTED',
      async () => (await get(token, `/api/${accountId}/status`)).json().connected === true,
    );

    // Short of credits: nothing changes.
    await debitCredits(t.db, user.id, 2, 'adjust');
    expect(await balanceOf(t.db, user.id)).toBe(2);
    const short = await retryJob(t.app, token, jobId, { sessionId: accountId });
    expect(short.statusCode).toBe(402);
    expect(short.json()).toEqual({
      success: false,
      message: 'Your Credit Balance is lower than the message count',
    });
    expect((await jobRow(t.db, jobId))!.failedCount).toBe(3);

    await addCredits(t.db, user.id, 3, 'grant');
    const retry = await retryJob(t.app, token, jobId, { sessionId: accountId });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual({
      success: true,
      message: 'Retrying 3 failed messages',
      retried: 3,
      creditsCharged: 3,
    });
    expect(await balanceOf(t.db, user.id)).toBe(2);
    const job = await waitForJobEnd(t.app, token, jobId);
    expect(job.status).toBe('completed');
    expect(job.results).toMatchObject({ success: 3, failed: 0 });
    expect((await recipientsOf(t.db, jobId)).every((r) => r.status === 'sent')).toBe(true);
    const ledger = await t.db.select().from(creditLedger).where(eq(creditLedger.jobId, jobId));
    expect(ledger.map((l) => [l.reason, l.delta])).toEqual([
      ['send', -3],
      ['refund', 3],
      ['retry', -3],
    ]);
    const outbox = await get(token, `/api/simulator/sessions/${accountId}/outbox`);
    expect(
      outbox
        .json()
        .messages.map((m: { chatId: string }) => m.chatId)
        .sort(),
    ).toEqual(['919800003001@s.whatsapp.net', '919800003002@s.whatsapp.net', '919800003003@s.whatsapp.net']);

    const nothing = await retryJob(t.app, token, jobId, { sessionId: accountId });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json()).toEqual({ success: false, message: 'No failed messages to retry' });
  });

  it('retries on another of the user’s sessions, never on someone else’s', async () => {
    const a = await account(10);
    const b = await account(10);
    const jobId = await send(
      a.token,
      a.sessionId,
      // A number that times out: a failure a retry may fix (a 'Not on WhatsApp' one is not retried),
      // once the user accepts that a copy may arrive twice.
      { chatIds: ['917040000001'], content: 'x' },
      'sendIndividualMessage',
    );
    await waitForJobEnd(t.app, a.token, jobId);
    const foreign = await retryJob(t.app, a.token, jobId, { sessionId: b.sessionId });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('No active session found');
    phone += 1;
    const second = await connectedAccount(t, a.token, String(phone));
    const moved = await retryJob(t.app, a.token, jobId, { sessionId: second, includeDeliveryUnknown: true });
    expect(moved.statusCode).toBe(200);
    const [row] = await t.db.select().from(messageJobs).where(eq(messageJobs.id, jobId));
    expect(row!.accountId).toBe(second);
    expect((await recipientsOf(t.db, jobId))[0]!.accountId).toBe(second);
    // Clean up: the number times out again, so the retried send fails again and is refunded.
    await waitForJobEnd(t.app, a.token, jobId);
  });

  it('deletes a finished job; the ledger keeps its rows', async () => {
    const { user, token, sessionId: accountId } = await account(10);
    const jobId = await send(
      token,
      accountId,
      { chatIds: ['919800004001'], content: 'x' },
      'sendIndividualMessage',
    );
    await waitForJobEnd(t.app, token, jobId);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(token),
    });
    expect(del.statusCode).toBe(200);
    expect((await get(token, `/api/message-jobs-details/${jobId}`)).statusCode).toBe(404);
    expect(await recipientsOf(t.db, jobId)).toEqual([]);
    const ledger = await t.db.select().from(creditLedger).where(eq(creditLedger.jobId, jobId));
    expect(ledger.map((l) => l.delta)).toEqual([-1]);
    expect(await balanceOf(t.db, user.id)).toBe(9);
  });
});
