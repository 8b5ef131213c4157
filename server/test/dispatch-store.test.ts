import { setTimeout as sleep } from 'node:timers/promises';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/client.ts';
import { creditLedger, messageJobRecipients, waSentMessages, waSessions } from '../src/db/schema.ts';
import { acceptSend } from '../src/messaging/accept/send.ts';
import { createDispatchStore } from '../src/messaging/engine/store.ts';
import { findUserById } from '../src/users/repository.ts';
import { balanceOf, buildSession, expectLedgerMatches, jobRow, recipientsOf } from './fakes/messaging.ts';
import { buildUser, createTestApp, DB_KINDS, type TestApp } from './helpers.ts';

/** The engine's store: every operation that fails or cancels recipients refunds them in the same statement. */
describe.each(DB_KINDS)('dispatch store (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t.close();
  });

  async function twoJobs(credits: number) {
    const user = await buildUser(t, { credits });
    const row = (await findUserById(t.db, user.id))!;
    const sessionId = await buildSession(t, user.id, { status: 'DISCONNECTED' });
    const ids: string[] = [];
    for (const chats of [
      ['911111111111', '912222222222', '913333333333'],
      ['914444444444', '915555555555'],
    ]) {
      const res = await acceptSend(
        t.ctx,
        row,
        sessionId,
        { chatIds: chats, content: 'Hello' },
        'individuals',
      );
      ids.push(res.jobId!);
    }
    return { user, sessionId, jobIds: ids };
  }

  it('fails the long-waiting recipients of two jobs of one user and refunds both in one statement, the ledger chain exact', async () => {
    const { user, jobIds } = await twoJobs(10);
    expect(await balanceOf(t.db, user.id)).toBe(5);
    // Both jobs have waited an hour for their session.
    await t.db.execute(
      sql`UPDATE message_jobs SET waiting_since = now() - interval '1 hour' WHERE user_id = ${user.id}`,
    );
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const groups = await store.failLongWaiting(60_000);

    expect(groups.map((g) => [g.jobId, g.count]).sort()).toEqual(
      [
        [jobIds[0], 3],
        [jobIds[1], 2],
      ].sort(),
    );
    expect(await balanceOf(t.db, user.id)).toBe(10);
    for (const jobId of jobIds) {
      const job = await jobRow(t.db, jobId);
      expect(job?.status).toBe('failed');
      for (const r of await recipientsOf(t.db, jobId)) expect(r.error).toBe('Session is not connected');
    }
    // Each ledger row's balance follows from the one before it.
    const ledger = await t.db
      .select()
      .from(creditLedger)
      .where(eq(creditLedger.userId, user.id))
      .orderBy(asc(creditLedger.id));
    expect(ledger.map((l) => [l.reason, l.delta])).toEqual([
      ['grant', 10],
      ['send', -3],
      ['send', -2],
      ['refund', jobIds[0]! < jobIds[1]! ? 3 : 2],
      ['refund', jobIds[0]! < jobIds[1]! ? 2 : 3],
    ]);
    let balance = 0;
    for (const l of ledger) {
      balance += l.delta;
      expect(l.balanceAfter).toBe(balance);
    }
    expect(
      ledger.filter((l) => l.reason === 'refund').every((l) => l.note === 'Session is not connected'),
    ).toBe(true);
    await expectLedgerMatches(t.db, [user.id]);
  });

  it('answers the due times of many sessions in one query: due now, later, none, and nothing for a paused queue', async () => {
    const now = await twoJobs(10);
    const later = await twoJobs(10);
    const paused = await twoJobs(10);
    const empty = await buildSession(t, now.user.id, { status: 'DISCONNECTED' });
    await t.db.execute(
      sql`UPDATE message_job_recipients SET due_at = now() + interval '1 hour' WHERE session_id = ${later.sessionId}`,
    );
    await t.db.execute(sql`UPDATE wa_sessions SET send_paused = true WHERE session_id = ${paused.sessionId}`);
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);

    const due = await store.msUntilNextDue([now.sessionId, later.sessionId, paused.sessionId, empty]);

    expect([...due.keys()].sort()).toEqual([now.sessionId, later.sessionId].sort());
    expect(due.get(now.sessionId)).toBe(0);
    expect(due.get(later.sessionId)).toBeGreaterThan(3_500_000);
    expect(due.get(later.sessionId)).toBeLessThanOrEqual(3_600_000);
    expect((await store.msUntilNextDue([])).size).toBe(0);
  });

  it('fails a claimed recipient and refunds it once; a second fail of the same recipient changes nothing', async () => {
    const { user, sessionId, jobIds } = await twoJobs(5);
    await t.db.execute(sql`UPDATE wa_sessions SET status = 'CONNECTED' WHERE session_id = ${sessionId}`);
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const [claimed] = await store.claim(sessionId, 1);
    expect(claimed?.jobId).toBe(jobIds[0]);
    await store.fail(claimed!.id, 'Not on WhatsApp');
    await store.fail(claimed!.id, 'Not on WhatsApp');

    expect(await balanceOf(t.db, user.id)).toBe(1);
    const [r] = await t.db
      .select()
      .from(messageJobRecipients)
      .where(eq(messageJobRecipients.id, claimed!.id));
    expect(r?.status).toBe('failed');
    expect((await jobRow(t.db, jobIds[0]!))?.failedCount).toBe(1);
    await expectLedgerMatches(t.db, [user.id]);
  });

  it("keeps each transport's copy of a sent message in the tick that records it; a session deleted meanwhile keeps none, and its send is still recorded", async () => {
    const user = await buildUser(t, { credits: 10 });
    const row = (await findUserById(t.db, user.id))!;
    const [kept, gone] = [await buildSession(t, user.id), await buildSession(t, user.id)];
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const claimed = [];
    for (const [sessionId, chat] of [
      [kept, '916555555555'],
      [gone, '916666666666'],
    ] as const) {
      await acceptSend(t.ctx, row, sessionId, { chatIds: [chat], content: 'Hi' }, 'individuals');
      claimed.push((await store.claim(sessionId, 1))[0]!);
    }
    await t.db.delete(waSessions).where(eq(waSessions.sessionId, gone));
    await Promise.all([
      store.recordSent(claimed[0]!.id, { messageId: 'K1', sentTo: '916555555555@lid', kept: '{"k":1}' }),
      store.recordSent(claimed[1]!.id, { messageId: 'K2', kept: '{"k":2}' }),
    ]);

    const stored = await t.db
      .select({
        sessionId: waSentMessages.sessionId,
        messageId: waSentMessages.messageId,
        chatId: waSentMessages.chatId,
        message: waSentMessages.message,
      })
      .from(waSentMessages)
      .where(inArray(waSentMessages.sessionId, [kept, gone]));
    expect(stored).toEqual([
      { sessionId: kept, messageId: 'K1', chatId: '916555555555@lid', message: '{"k":1}' },
    ]);
    const statuses = await t.db
      .select({ status: messageJobRecipients.status, messageId: messageJobRecipients.messageId })
      .from(messageJobRecipients)
      .where(inArray(messageJobRecipients.sessionId, [kept, gone]))
      .orderBy(asc(messageJobRecipients.messageId));
    expect(statuses).toEqual([
      { status: 'sent', messageId: 'K1' },
      { status: 'sent', messageId: 'K2' },
    ]);
    await expectLedgerMatches(t.db, [user.id]);
  });
});

/** The sweep asks one statement which of its checks have work, and runs only those. */
describe.each(DB_KINDS)('sweep checks (%s)', (kind) => {
  it('finds nothing to do on an idle database; each kind of work turns on its own check', async () => {
    const t = await createTestApp(kind);
    try {
      const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
      const none = {
        expiredLeases: false,
        endedPauses: false,
        spreadJobs: false,
        waitingClocks: false,
        longWaiting: false,
        forbidden: false,
      };
      expect(await store.sweepsDue(60_000)).toEqual(none);

      // A job on a disconnected account: its waiting clock is to start, then it has waited.
      const user = await buildUser(t, { credits: 10 });
      const row = (await findUserById(t.db, user.id))!;
      const sessionId = await buildSession(t, user.id, { status: 'DISCONNECTED' });
      const { jobId } = await acceptSend(
        t.ctx,
        row,
        sessionId,
        { chatIds: ['917111111111', '917222222222'], content: 'Hi' },
        'individuals',
      );
      expect(await store.sweepsDue(60_000)).toEqual({ ...none, waitingClocks: true });
      await store.updateWaitingClocks();
      expect(await store.sweepsDue(60_000)).toEqual({ ...none, waitingClocks: true });
      expect(await store.sweepsDue(0)).toEqual({ ...none, waitingClocks: true, longWaiting: true });

      // Spread over accounts; a send whose lease ran out; a restriction whose end has come; the owner disabled.
      await t.db.execute(sql`UPDATE message_jobs SET session_ids = ARRAY[${sessionId}] WHERE id = ${jobId}`);
      await t.db.execute(
        sql`UPDATE message_job_recipients SET status = 'sending', lease_owner = 'gone', lease_expires_at = now() - interval '1 second'
            WHERE id = (SELECT min(id) FROM message_job_recipients WHERE job_id = ${jobId})`,
      );
      await t.db.execute(
        sql`UPDATE wa_sessions SET send_paused = true, send_paused_until = now() - interval '1 second' WHERE session_id = ${sessionId}`,
      );
      await t.db.execute(sql`UPDATE users SET disabled = true WHERE id = ${user.id}`);
      expect(await store.sweepsDue(60_000)).toEqual({
        expiredLeases: true,
        endedPauses: true,
        spreadJobs: true,
        waitingClocks: true,
        longWaiting: false,
        forbidden: true,
      });
    } finally {
      await t.close();
    }
  });
});

/**
 * A tick records sends of several jobs in one statement while receipts (and the jobs API) lock a
 * job, then its recipients. The tick must take its job locks, in id order, before it touches a
 * recipient: else a receipt batch holding job B and reaching for a recipient of job A deadlocks
 * with a tick that updated A's recipient and waits for B. PostgreSQL only (PGlite runs one
 * transaction at a time).
 */
describe.runIf(DB_KINDS.includes('postgres'))('dispatch tick beside a receipt batch (postgres)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('postgres');
  });
  afterAll(async () => {
    await t.close();
  });

  /** One job for each of two chats of one session, both recipients claimed; `low` is the lower job id. */
  async function twoJobsClaimed(chats: [string, string]) {
    const user = await buildUser(t, { credits: 10 });
    const row = (await findUserById(t.db, user.id))!;
    const sessionId = await buildSession(t, user.id);
    const jobIds: string[] = [];
    for (const chat of chats) {
      const res = await acceptSend(t.ctx, row, sessionId, { chatIds: [chat], content: 'Hi' }, 'individuals');
      jobIds.push(res.jobId!);
    }
    const [low, high] = [...jobIds].sort() as [string, string];
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const claimed = await store.claim(sessionId, 2);
    const ofLow = claimed.find((c) => c.jobId === low)!;
    const ofHigh = claimed.find((c) => c.jobId === high)!;
    return { user, sessionId, jobIds, low, high, store, ofLow, ofHigh };
  }

  it('waits for a job another transaction holds before touching any recipient, so the two finish', async () => {
    const { user, sessionId, jobIds, high, store, ofLow, ofHigh } = await twoJobsClaimed([
      '916111111111',
      '916222222222',
    ]);

    let tick: Promise<unknown> | undefined;
    await t.db.transaction(async (tx) => {
      // As a receipt batch does: the job first (the higher id here)...
      await tx.execute(sql`SELECT id FROM message_jobs WHERE id = ${high} FOR UPDATE`);
      // ...while the tick records a send of each job in one statement...
      tick = Promise.all([
        store.recordSent(ofLow.id, { messageId: 'A1' }),
        store.recordSent(ofHigh.id, { messageId: 'B1' }),
      ]);
      await sleep(300);
      // ...then a recipient of the other job: free, because the tick has touched none yet.
      await tx.execute(sql`SELECT id FROM message_job_recipients WHERE id = ${ofLow.id} FOR UPDATE`);
    });
    await tick;

    const rows = await t.db
      .select({
        id: messageJobRecipients.id,
        status: messageJobRecipients.status,
        messageId: messageJobRecipients.messageId,
      })
      .from(messageJobRecipients)
      .where(eq(messageJobRecipients.sessionId, sessionId))
      .orderBy(asc(messageJobRecipients.messageId));
    expect(rows.map((r) => [r.status, r.messageId])).toEqual([
      ['sent', 'A1'],
      ['sent', 'B1'],
    ]);
    for (const jobId of jobIds) {
      const job = await jobRow(t.db, jobId);
      expect([job?.status, job?.sentCount]).toEqual(['completed', 1]);
    }
    await expectLedgerMatches(t.db, [user.id]);
  });

  it('applies receipts of two jobs in one statement that locks both jobs before any recipient, beside a job held', async () => {
    const { sessionId, low, high, store, ofLow, ofHigh } = await twoJobsClaimed([
      '916333333333',
      '916444444444',
    ]);
    await Promise.all([
      store.recordSent(ofLow.id, { messageId: 'RL' }),
      store.recordSent(ofHigh.id, { messageId: 'RH' }),
    ]);

    const at = new Date('2026-11-25T06:00:00Z');
    let applied: Promise<unknown> | undefined;
    await t.db.transaction(async (tx) => {
      // As a delete or a retry does: the job first (the higher id here)...
      await tx.execute(sql`SELECT id FROM message_jobs WHERE id = ${high} FOR UPDATE`);
      // ...while one receipt batch reaches both jobs (and one message no recipient has)...
      applied = store.applyReceipts([
        { sessionId, messageId: 'RL', status: 'read', at },
        { sessionId, messageId: 'RH', status: 'delivered', at },
        { sessionId, messageId: 'ELSEWHERE', status: 'delivered', at },
      ]);
      await sleep(300);
      // ...then a recipient of the other job: free, because the receipts have touched none yet.
      await tx.execute(sql`SELECT id FROM message_job_recipients WHERE id = ${ofLow.id} FOR UPDATE`);
    });
    const unmatched = (await applied) as Array<{ messageId: string }>;
    expect(unmatched.map((u) => u.messageId)).toEqual(['ELSEWHERE']);

    const recipients = await t.db
      .select({
        messageId: messageJobRecipients.messageId,
        deliveredAt: messageJobRecipients.deliveredAt,
        readAt: messageJobRecipients.readAt,
      })
      .from(messageJobRecipients)
      .where(eq(messageJobRecipients.sessionId, sessionId))
      .orderBy(asc(messageJobRecipients.messageId));
    expect(recipients).toEqual([
      { messageId: 'RH', deliveredAt: at, readAt: null },
      { messageId: 'RL', deliveredAt: at, readAt: at },
    ]);
    const counts = async (jobId: string) => {
      const job = await jobRow(t.db, jobId);
      return [job?.deliveredCount, job?.readCount];
    };
    expect(await counts(low)).toEqual([1, 1]);
    expect(await counts(high)).toEqual([1, 0]);
  });

  it('records sends and applies receipts of the same jobs at once, round after round: no deadlock, every counter exact', async () => {
    const user = await buildUser(t, { credits: 300 });
    const row = (await findUserById(t.db, user.id))!;
    const sessionId = await buildSession(t, user.id);
    const JOBS = 24;
    for (let j = 0; j < JOBS; j++) {
      const chats = Array.from({ length: 10 }, (_, i) => `9170${String(j * 10 + i).padStart(8, '0')}`);
      await acceptSend(t.ctx, row, sessionId, { chatIds: chats, content: 'Hi' }, 'individuals');
    }
    // Six nodes' stores recording sends at once, two more applying receipts.
    const stores = Array.from({ length: 8 }, () => createDispatchStore(t.db, t.ctx.nodeId, 60_000));
    const claimed = await stores[0]!.claim(sessionId, JOBS * 10);
    expect(claimed).toHaveLength(JOBS * 10);
    const deadlocks = async () => {
      const [r] = await queryRows<{ n: number }>(
        t.db,
        sql`SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()`,
      );
      return r!.n;
    };
    const before = await deadlocks();
    // Each round sends one recipient of every job, in an order that mixes them, and the receipts
    // of the round before arrive meanwhile: every statement reaches most jobs.
    const byJob = new Map<string, typeof claimed>();
    for (const r of claimed) byJob.set(r.jobId, [...(byJob.get(r.jobId) ?? []), r]);
    let previous: typeof claimed = [];
    const receiptErrors: unknown[] = [];
    for (let round = 0; round < 10; round++) {
      const now = [...byJob.values()]
        .map((rs) => rs[round]!)
        .sort((x, y) => ((x.id * 7919) % 97) - ((y.id * 7919) % 97));
      const at = new Date();
      const receipts = previous.map((r, i) => ({
        sessionId,
        messageId: `M${r.id}`,
        status: i % 2 ? ('read' as const) : ('delivered' as const),
        at,
      }));
      await Promise.all([
        ...now.map((r, i) => stores[i % 6]!.recordSent(r.id, { messageId: `M${r.id}` })),
        ...[receipts.filter((_, i) => i % 2 === 0), receipts.filter((_, i) => i % 2 === 1).reverse()].map(
          (batch, k) => stores[6 + k]!.applyReceipts(batch).catch((err) => receiptErrors.push(err)),
        ),
      ]);
      previous = now;
    }
    expect(receiptErrors).toEqual([]);
    const jobs = await queryRows<{ sent: number; delivered: number; read: number; d: number; rd: number }>(
      t.db,
      sql`SELECT j.sent_count AS sent, j.delivered_count AS delivered, j.read_count AS read,
                 (SELECT count(*)::int FROM message_job_recipients r WHERE r.job_id = j.id AND r.delivered_at IS NOT NULL) AS d,
                 (SELECT count(*)::int FROM message_job_recipients r WHERE r.job_id = j.id AND r.read_at IS NOT NULL) AS rd
          FROM message_jobs j WHERE j.user_id = ${user.id}`,
    );
    expect(jobs.reduce((n, j) => n + j.sent, 0)).toBe(JOBS * 10);
    expect(jobs.reduce((n, j) => n + j.d, 0)).toBe(JOBS * 9);
    for (const j of jobs) expect([j.delivered, j.read]).toEqual([j.d, j.rd]);
    await sleep(1200);
    expect(await deadlocks()).toBe(before);
  });
});
