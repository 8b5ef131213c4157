import { asc, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts, messageJobRecipients, waSentMessages } from '../../src/db/schema.ts';
import { acceptSend } from '../../src/messaging/accept/send.ts';
import { createDispatchStore } from '../../src/messaging/engine/store.ts';
import { findUserById } from '../../src/users/repository.ts';
import {
  balanceOf,
  buildAccount,
  expectLedgerChain,
  expectLedgerMatches,
  jobRow,
  recipientsOf,
} from '../fakes/messaging.ts';
import { buildUser, createTestApp, DB_KINDS, testAppFor } from '../helpers.ts';

/** The engine's store: every operation that fails or cancels recipients refunds them in the same statement. */
describe.each(DB_KINDS)('dispatch store (%s)', (kind) => {
  const t = testAppFor(kind);

  async function twoJobs(credits: number) {
    const user = await buildUser(t, { credits });
    const row = (await findUserById(t.db, user.id))!;
    const accountId = await buildAccount(t, user.id, { status: 'DISCONNECTED' });
    const ids: string[] = [];
    for (const chats of [
      ['911111111111', '912222222222', '913333333333'],
      ['914444444444', '915555555555'],
    ]) {
      const res = await acceptSend(
        t.ctx,
        row,
        accountId,
        { chatIds: chats, content: 'Hello' },
        'individuals',
      );
      ids.push(res.jobId!);
    }
    return { user, sessionId: accountId, jobIds: ids };
  }

  it('fails the long-waiting recipients of two jobs of one user and refunds both in one statement, the ledger chain exact', async () => {
    const { user, jobIds } = await twoJobs(10);
    expect(await balanceOf(t.db, user.id)).toBe(5);
    // Both jobs have waited an hour for their account.
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
    const ledger = await expectLedgerChain(t.db, user.id);
    expect(ledger.map((l) => [l.reason, l.delta])).toEqual([
      ['grant', 10],
      ['send', -3],
      ['send', -2],
      ['refund', jobIds[0]! < jobIds[1]! ? 3 : 2],
      ['refund', jobIds[0]! < jobIds[1]! ? 2 : 3],
    ]);
    expect(
      ledger.filter((l) => l.reason === 'refund').every((l) => l.note === 'Session is not connected'),
    ).toBe(true);
    await expectLedgerMatches(t.db, [user.id]);
  });

  it('answers the due times of many sessions in one query: due now, later, none, and nothing for a paused queue', async () => {
    const now = await twoJobs(10);
    const later = await twoJobs(10);
    const paused = await twoJobs(10);
    const empty = await buildAccount(t, now.user.id, { status: 'DISCONNECTED' });
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
    const { user, sessionId: accountId, jobIds } = await twoJobs(5);
    await t.db.execute(sql`UPDATE wa_sessions SET status = 'CONNECTED' WHERE session_id = ${accountId}`);
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const [claimed] = await store.claim(accountId, 1);
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
    const [kept, gone] = [await buildAccount(t, user.id), await buildAccount(t, user.id)];
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const claimed = [];
    for (const [accountId, chat] of [
      [kept, '916555555555'],
      [gone, '916666666666'],
    ] as const) {
      await acceptSend(t.ctx, row, accountId, { chatIds: [chat], content: 'Hi' }, 'individuals');
      claimed.push((await store.claim(accountId, 1))[0]!);
    }
    await t.db.delete(accounts).where(eq(accounts.accountId, gone));
    await Promise.all([
      store.recordSent(claimed[0]!.id, { messageId: 'K1', sentTo: '916555555555@lid', kept: '{"k":1}' }),
      store.recordSent(claimed[1]!.id, { messageId: 'K2', kept: '{"k":2}' }),
    ]);

    const stored = await t.db
      .select({
        sessionId: waSentMessages.accountId,
        messageId: waSentMessages.messageId,
        chatId: waSentMessages.chatId,
        message: waSentMessages.message,
      })
      .from(waSentMessages)
      .where(inArray(waSentMessages.accountId, [kept, gone]));
    expect(stored).toEqual([
      { sessionId: kept, messageId: 'K1', chatId: '916555555555@lid', message: '{"k":1}' },
    ]);
    const statuses = await t.db
      .select({ status: messageJobRecipients.status, messageId: messageJobRecipients.messageId })
      .from(messageJobRecipients)
      .where(inArray(messageJobRecipients.accountId, [kept, gone]))
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
      const accountId = await buildAccount(t, user.id, { status: 'DISCONNECTED' });
      const { jobId } = await acceptSend(
        t.ctx,
        row,
        accountId,
        { chatIds: ['917111111111', '917222222222'], content: 'Hi' },
        'individuals',
      );
      expect(await store.sweepsDue(60_000)).toEqual({ ...none, waitingClocks: true });
      await store.updateWaitingClocks();
      expect(await store.sweepsDue(60_000)).toEqual({ ...none, waitingClocks: true });
      expect(await store.sweepsDue(0)).toEqual({ ...none, waitingClocks: true, longWaiting: true });

      // Spread over accounts; a send whose lease ran out; a restriction whose end has come; the owner disabled.
      await t.db.execute(sql`UPDATE message_jobs SET session_ids = ARRAY[${accountId}] WHERE id = ${jobId}`);
      await t.db.execute(
        sql`UPDATE message_job_recipients SET status = 'sending', lease_owner = 'gone', lease_expires_at = now() - interval '1 second'
            WHERE id = (SELECT min(id) FROM message_job_recipients WHERE job_id = ${jobId})`,
      );
      await t.db.execute(
        sql`UPDATE wa_sessions SET send_paused = true, send_paused_until = now() - interval '1 second' WHERE session_id = ${accountId}`,
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
