import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accounts, creditLedger, messageJobRecipients } from '../../src/db/schema.ts';
import { type Dispatcher, startDispatcher } from '../../src/messaging/engine/dispatcher.ts';
import { type OutcomeBatches, startOutcomeBatches } from '../../src/messaging/outcome-batches.ts';
import { privacyTokenStore } from '../../src/transport/privacy-tokens.ts';
import { SendError } from '../../src/transport/types.ts';
import {
  balanceOf,
  buildAccount,
  buildGroups,
  expectLedgerMatches,
  jobRow,
  pastAccountWait,
  recipientsOf,
  waitForJobEnd,
} from '../fakes/messaging.ts';
import { FakeRuntime } from '../fakes/runtime.ts';
import { bearer, createTestApp, DB_KINDS, account as signedIn, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';

type Rig = {
  t: TestApp;
  runtime: FakeRuntime;
  dispatcher: Dispatcher;
  outcomes: OutcomeBatches;
  users: Set<string>;
};

/** The dispatcher, and what comes back taken as the engine takes it (engine.ts). */
async function rig(kind: 'pglite' | 'postgres', env: Record<string, string> = {}): Promise<Rig> {
  const t = await createTestApp(kind, env);
  const runtime = new FakeRuntime();
  const outcomes = startOutcomeBatches(t.ctx, runtime);
  const dispatcher = await startDispatcher(t.ctx, runtime, { pollMs: 200, sweepMs: 50 });
  return { t, runtime, dispatcher, outcomes, users: new Set() };
}

async function closeRig(r: Rig) {
  await r.dispatcher.stop();
  await r.outcomes.stop();
  await r.runtime.stop();
  await r.t.close();
}

async function account(r: Rig, credits: number) {
  const { user, token } = await signedIn(r.t, { credits, track: r.users });
  const accountId = await buildAccount(r.t, user.id, { ownerNode: r.t.ctx.nodeId });
  return { user, token, sessionId: accountId };
}

async function sendNumbers(r: Rig, token: string, accountId: string, numbers: string[], extra: object = {}) {
  const res = await r.t.app.inject({
    method: 'POST',
    url: `/api/session/${accountId}/sendIndividualMessage`,
    headers: bearer(token),
    payload: { chatIds: numbers, content: 'Hello', ...extra },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().jobId as string;
}

const numbers = (n: number, start = 919_800_000_001) =>
  Array.from({ length: n }, (_, i) => String(start + i));

describe.each(DB_KINDS)('dispatcher on %s', (kind) => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig(kind, { SESSION_WAIT_MS: '600', SEND_TIMEOUT_MS: '2000' });
  });
  afterAll(() => closeRig(r));
  afterEach(async () => {
    await expectLedgerMatches(r.t.db, r.users);
  });

  it('sends every recipient once, stores message ids, completes the job', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    const jobId = await sendNumbers(r, token, accountId, numbers(5));
    const job = await waitForJobEnd(r.t.app, token, jobId);
    expect(job.status).toBe('completed');
    expect(job.progress).toEqual({ completed: 5, total: 5, percentComplete: 100 });
    expect(job.results).toMatchObject({ success: 5, failed: 0 });
    expect(transport.sent.map((s) => s.chatId)).toEqual(numbers(5).map((n) => `${n}@s.whatsapp.net`));
    expect(transport.sent[0]!.message).toEqual({ kind: 'text', text: 'Hello' });
    const rs = await recipientsOf(r.t.db, jobId);
    expect(rs.every((x) => x.status === 'sent' && x.messageId?.startsWith('FAKE') && x.sentAt)).toBe(true);
    expect(await balanceOf(r.t.db, user.id)).toBe(5);
  });

  it('fails numbers not on WhatsApp with the reason, refunds them, marks the job failed', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    r.runtime.connect(accountId, user.id);
    const jobId = await sendNumbers(r, token, accountId, ['919800000011', '919800000000', '919811110000']);
    const job = await waitForJobEnd(r.t.app, token, jobId);
    expect(job.status).toBe('failed');
    expect(job.results).toMatchObject({ success: 1, failed: 2 });
    const rs = await recipientsOf(r.t.db, jobId);
    expect(rs.map((x) => [x.status, x.error])).toEqual([
      ['sent', null],
      ['failed', 'Not on WhatsApp'],
      ['failed', 'Not on WhatsApp'],
    ]);
    expect(await balanceOf(r.t.db, user.id)).toBe(9);
    const refunds = await r.t.db.select().from(creditLedger).where(eq(creditLedger.jobId, jobId));
    expect(refunds.filter((l) => l.reason === 'refund').map((l) => l.delta)).toEqual([1, 1]);
  });

  it('sends text, media and poll with the stored content', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    const groups = await buildGroups(r.t, accountId, [2]);
    const post = (payload: object) =>
      r.t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendBulkMessage`,
        headers: bearer(token),
        payload: { chatIds: groups, ...payload },
      });
    const data = Buffer.from('%PDF-1.4 test').toString('base64');
    const media = await post({
      type: 'media',
      mime: 'application/pdf',
      data,
      content: 'Invoice',
      fileName: 'a.pdf',
    });
    const poll = await post({
      type: 'poll',
      content: { pollName: 'Q', pollOptions: ['a', 'b', ''], options: { allowMultipleAnswers: false } },
    });
    await waitForJobEnd(r.t.app, token, media.json().jobId);
    await waitForJobEnd(r.t.app, token, poll.json().jobId);
    expect(transport.sent.map((s) => s.message)).toEqual([
      {
        // Sent as what the bytes are (file-type), not as the label the upload gave.
        kind: 'media',
        as: 'document',
        mime: 'application/pdf',
        data: Buffer.from('%PDF-1.4 test'),
        fileName: 'a.pdf',
        caption: 'Invoice',
      },
      // With the job's own message secret, which its votes are read with.
      {
        kind: 'poll',
        name: 'Q',
        options: ['a', 'b'],
        allowMultipleAnswers: false,
        secret: expect.any(Buffer),
      },
    ]);
  });

  it('holds recipients while the session is down, sends them when it returns within the wait', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const jobId = await sendNumbers(r, token, accountId, numbers(2, 919_800_000_101));
    // A whole pass of the dispatcher's checks, after the job was queued, leaves it waiting.
    await r.dispatcher.sweep();
    expect((await jobRow(r.t.db, jobId))!.status).toBe('pending');
    r.runtime.connect(accountId, user.id);
    expect((await waitForJobEnd(r.t.app, token, jobId)).status).toBe('completed');
  });

  it('fails held recipients with "Session is not connected" after SESSION_WAIT_MS, refunded', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    await r.t.db.update(accounts).set({ status: 'DISCONNECTED' }).where(eq(accounts.accountId, accountId));
    const started = Date.now();
    const jobId = await sendNumbers(r, token, accountId, numbers(3, 919_800_000_201));
    const job = await waitForJobEnd(r.t.app, token, jobId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(job.status).toBe('failed');
    const rs = await recipientsOf(r.t.db, jobId);
    expect(rs.every((x) => x.status === 'failed' && x.error === 'Session is not connected')).toBe(true);
    expect(await balanceOf(r.t.db, user.id)).toBe(10);
  });

  it('error 463 fails that recipient, holds the other one-to-one sends past SESSION_WAIT_MS, and Resume sending sends them once', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    let calls = 0;
    transport.behave = () => {
      calls += 1;
      if (calls === 2) throw new SendError('restricted', 'Account restricted by WhatsApp (463)');
    };
    const jobId = await sendNumbers(r, token, accountId, numbers(4, 919_800_000_301));
    await waitFor('the 463', async () =>
      (await recipientsOf(r.t.db, jobId))[1]?.status === 'failed' ? true : null,
    );
    // Held, not failed, after SESSION_WAIT_MS (600 ms here): they wait for the restriction to end.
    await pastAccountWait(r.t, r.users);
    expect(calls).toBe(2);
    expect(transport.sent.length).toBe(1);
    const [session] = await r.t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    expect(session).toMatchObject({ sendPaused: true, statusReason: 'Account restricted by WhatsApp (463)' });
    expect((await recipientsOf(r.t.db, jobId)).map((x) => [x.status, x.error])).toEqual([
      ['sent', null],
      ['failed', 'Account restricted by WhatsApp (463)'],
      ['queued', null],
      ['queued', null],
    ]);
    const resumed = await r.t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/resume`,
      headers: bearer(token),
    });
    expect(resumed.json()).toEqual({ success: true, message: 'Sending resumed' });
    const job = await waitForJobEnd(r.t.app, token, jobId);
    expect(job).toMatchObject({ status: 'failed', results: { success: 3, failed: 1 } });
    expect(transport.sent.map((x) => x.chatId)).toEqual(
      [0, 2, 3].map((i) => `${919_800_000_301 + i}@s.whatsapp.net`),
    );
    expect(await balanceOf(r.t.db, user.id)).toBe(7);
  });

  it('error 463 holds back only the chats without a privacy token: a chat whose contact gave one is sent', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    const [fresh, friend, stranger, lapsed] = numbers(4, 919_800_000_321);
    const tokens = privacyTokenStore(r.t.db, accountId);
    await tokens.note(`${friend}@s.whatsapp.net`, new Date(Date.now() + 86_400_000));
    await tokens.note(`${lapsed}@s.whatsapp.net`, new Date(Date.now() - 1000));
    transport.behave = (chatId) => {
      if (chatId === `${fresh}@s.whatsapp.net`)
        throw new SendError('restricted', 'Account restricted by WhatsApp (463)');
    };
    const jobId = await sendNumbers(r, token, accountId, [fresh!, friend!, stranger!, lapsed!]);
    await waitFor('the friend sent', async () =>
      (await recipientsOf(r.t.db, jobId))[1]?.status === 'sent' ? true : null,
    );
    await pastAccountWait(r.t, r.users);
    expect((await recipientsOf(r.t.db, jobId)).map((x) => [x.status, x.error])).toEqual([
      ['failed', 'Account restricted by WhatsApp (463)'],
      ['sent', null],
      ['queued', null],
      ['queued', null],
    ]);
    expect(transport.sent.map((x) => x.chatId)).toEqual([`${friend}@s.whatsapp.net`]);
  });

  it('a send that hangs past SEND_TIMEOUT_MS is an outcome: failed "delivery unknown", refunded, and the account goes on', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    const hung = `${919_800_000_351}@s.whatsapp.net`;
    transport.behave = (chatId) => (chatId === hung ? new Promise<void>(() => {}) : undefined);
    const started = Date.now();
    const jobId = await sendNumbers(r, token, accountId, numbers(2, 919_800_000_351));
    const job = await waitForJobEnd(r.t.app, token, jobId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(job).toMatchObject({ status: 'failed', results: { success: 1, failed: 1 } });
    expect((await recipientsOf(r.t.db, jobId)).map((x) => [x.status, x.error])).toEqual([
      ['failed', 'Send timed out: delivery unknown'],
      ['sent', null],
    ]);
    expect(await balanceOf(r.t.db, user.id)).toBe(9);
  });

  it('records delivery and read receipts per recipient and on the dashboard', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    await buildGroups(r.t, accountId, [3, 4]);
    const jobId = await sendNumbers(r, token, accountId, numbers(3, 919_800_000_401));
    await waitForJobEnd(r.t.app, token, jobId);
    const [a, b] = transport.sent;
    const at = new Date();
    transport.emit('receipt', { messageId: a!.messageId, status: 'delivered', at });
    transport.emit('receipt', { messageId: b!.messageId, status: 'read', at });
    transport.emit('receipt', { messageId: a!.messageId, status: 'delivered', at });
    await waitFor('receipts', async () =>
      (await jobRow(r.t.db, jobId))!.deliveredCount === 2 ? true : null,
    );
    const rs = await recipientsOf(r.t.db, jobId);
    expect(rs.map((x) => [Boolean(x.deliveredAt), Boolean(x.readAt)])).toEqual([
      [true, false],
      [true, true],
      [false, false],
    ]);
    const dash = await r.t.app.inject({ method: 'GET', url: '/api/dashboard', headers: bearer(token) });
    expect(dash.statusCode).toBe(200);
    expect(dash.json()).toMatchObject({
      success: true,
      sessionId: accountId,
      totalGroups: 2,
      totalMembers: 7,
      messagesSent: 3,
      delivered: 2,
      deliveryRate: 66.7,
    });
    expect(dash.json().recentJobs[0].id).toBe(jobId);
    expect(dash.json().recentJobs[0].results).toEqual({ success: 3, failed: 0, delivered: 2, read: 1 });
  });

  it('fails a send another node left in flight: delivery unknown, refunded, never re-sent', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const jobId = await sendNumbers(r, token, accountId, numbers(3, 919_800_000_501));
    const [first] = await recipientsOf(r.t.db, jobId);
    // As a node that died mid-send leaves it.
    await r.t.db
      .update(messageJobRecipients)
      .set({ status: 'sending', leaseOwner: 'dead-node', leaseExpiresAt: new Date(Date.now() + 3_600_000) })
      .where(eq(messageJobRecipients.id, first!.id));
    const transport = r.runtime.connect(accountId, user.id);
    const job = await waitForJobEnd(r.t.app, token, jobId);
    expect(job.results).toMatchObject({ success: 2, failed: 1 });
    const rs = await recipientsOf(r.t.db, jobId);
    expect(rs[0]).toMatchObject({ status: 'failed', error: 'Interrupted: delivery unknown' });
    expect(transport.sent.map((s) => s.chatId)).not.toContain(first!.chatId);
    expect(await balanceOf(r.t.db, user.id)).toBe(8);
  });

  it('fails an expired lease on a session no one drives', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const jobId = await sendNumbers(r, token, accountId, numbers(1, 919_800_000_601));
    await r.t.db
      .update(messageJobRecipients)
      .set({ status: 'sending', leaseOwner: 'dead-node', leaseExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(messageJobRecipients.jobId, jobId));
    await r.dispatcher.sweep();
    const [x] = await recipientsOf(r.t.db, jobId);
    expect(x).toMatchObject({ status: 'failed', error: 'Interrupted: delivery unknown' });
    expect(await balanceOf(r.t.db, user.id)).toBe(10);
  });
});

describe.each(DB_KINDS)('dispatcher timing on %s', (kind) => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig(kind, { SEND_DELAY_MIN_MS: '200', SEND_DELAY_MAX_MS: '300' });
  });
  afterAll(() => closeRig(r));
  afterEach(async () => {
    await expectLedgerMatches(r.t.db, r.users);
  });

  it('paces sends: 5 recipients with a 200–300 ms pause take at least 800 ms', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    const jobId = await sendNumbers(r, token, accountId, numbers(5, 919_800_000_701));
    await waitForJobEnd(r.t.app, token, jobId);
    const times = transport.sent.map((s) => s.at);
    expect(times.length).toBe(5);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(199);
    expect(times[4]! - times[0]!).toBeGreaterThanOrEqual(800);
  });

  it('keeps a scheduled job scheduled until its time, then starts it within 1 s', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    const at = new Date(Date.now() + 3000);
    const jobId = await sendNumbers(r, token, accountId, numbers(1, 919_800_000_801), {
      scheduleTime: at.toISOString(),
    });
    expect((await jobRow(r.t.db, jobId))!.status).toBe('scheduled');
    const job = await waitForJobEnd(r.t.app, token, jobId);
    expect(job.status).toBe('completed');
    // Kept until its time: its one send came at the schedule time, not before.
    expect(transport.sent.length).toBe(1);
    expect(transport.sent[0]!.at).toBeGreaterThanOrEqual(at.getTime());
    expect(transport.sent[0]!.at - at.getTime()).toBeLessThan(1000);
  });

  it('deleting a scheduled job refunds everything and removes it', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    r.runtime.connect(accountId, user.id);
    const jobId = await sendNumbers(r, token, accountId, numbers(4, 919_800_000_901), {
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(await balanceOf(r.t.db, user.id)).toBe(6);
    const del = await r.t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(token),
    });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ success: true, message: 'Job deleted successfully' });
    expect(await jobRow(r.t.db, jobId)).toBeUndefined();
    expect(await balanceOf(r.t.db, user.id)).toBe(10);
    const ledger = await r.t.db.select().from(creditLedger).where(eq(creditLedger.jobId, jobId));
    expect(ledger.map((l) => [l.reason, l.delta])).toEqual([
      ['send', -4],
      ['refund', 4],
    ]);
  });

  it('deleting a running job waits for the send in flight, refunds the rest', async () => {
    const { user, token, sessionId: accountId } = await account(r, 10);
    const transport = r.runtime.connect(accountId, user.id);
    const jobId = await sendNumbers(r, token, accountId, numbers(5, 919_800_001_001));
    await waitFor('first send', async () => transport.sent.length >= 1);
    const del = await r.t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(token),
    });
    expect(del.statusCode).toBe(200);
    await new Promise((res) => setTimeout(res, 400));
    const sent = transport.sent.length;
    expect(sent).toBeLessThan(5);
    expect(await balanceOf(r.t.db, user.id)).toBe(10 - sent);
  });
});
