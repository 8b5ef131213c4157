import { setTimeout as sleep } from 'node:timers/promises';
import { asc, eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type Db, queryRows } from '../../src/db/client.ts';
import { messageJobRecipients } from '../../src/db/schema.ts';
import { acceptSend } from '../../src/messaging/accept/send.ts';
import { applyReceipts } from '../../src/messaging/engine/receipts.ts';
import { createDispatchStore } from '../../src/messaging/engine/store.ts';
import { findUserById } from '../../src/users/repository.ts';
import { buildAccount, expectLedgerMatches, jobRow } from '../fakes/messaging.ts';
import { buildUser, DB_KINDS, testAppFor } from '../helpers.ts';

/**
 * A tick records sends of several jobs in one statement while receipts (and the jobs API) lock a
 * job, then its recipients. The tick must take its job locks, in id order, before it touches a
 * recipient: else a receipt batch holding job B and reaching for a recipient of job A deadlocks
 * with a tick that updated A's recipient and waits for B. PostgreSQL only (PGlite runs one
 * transaction at a time).
 */
/**
 * pg_stat_database.deadlocks of the test's database, once every backend that may count one has
 * told it: a backend flushes its statistics at most once a second, and at its exit. So this ends
 * every other backend on the database (the pool opens new ones) and waits until each has exited
 * (pg_terminate_backend with a timeout), then reads the count from a backend of its own.
 */
async function deadlocksOnceFlushed(db: Db): Promise<number> {
  const [{ name }] = (await queryRows<{ name: string }>(db, sql`SELECT current_database() AS name`)) as [
    { name: string },
  ];
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const ended = await client.query<{ pid: number; exited: boolean }>(
      `SELECT pid, pg_terminate_backend(pid, 10000) AS exited FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    expect(ended.rows.filter((r) => !r.exited)).toEqual([]);
    const counted = await client.query<{ n: number }>(
      'SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return counted.rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe.runIf(DB_KINDS.includes('postgres'))('dispatch tick beside a receipt batch (postgres)', () => {
  const t = testAppFor('postgres');

  /** One job for each of two chats of one account, both recipients claimed; `low` is the lower job id. */
  async function twoJobsClaimed(chats: [string, string]) {
    const user = await buildUser(t, { credits: 10 });
    const row = (await findUserById(t.db, user.id))!;
    const accountId = await buildAccount(t, user.id);
    const jobIds: string[] = [];
    for (const chat of chats) {
      const res = await acceptSend(t.ctx, row, accountId, { chatIds: [chat], content: 'Hi' }, 'individuals');
      jobIds.push(res.jobId!);
    }
    const [low, high] = [...jobIds].sort() as [string, string];
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const claimed = await store.claim(accountId, 2);
    const ofLow = claimed.find((c) => c.jobId === low)!;
    const ofHigh = claimed.find((c) => c.jobId === high)!;
    return { user, sessionId: accountId, jobIds, low, high, store, ofLow, ofHigh };
  }

  it('waits for a job another transaction holds before touching any recipient, so the two finish', async () => {
    const {
      user,
      sessionId: accountId,
      jobIds,
      high,
      store,
      ofLow,
      ofHigh,
    } = await twoJobsClaimed(['916111111111', '916222222222']);

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
      .where(eq(messageJobRecipients.accountId, accountId))
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
    const {
      sessionId: accountId,
      low,
      high,
      store,
      ofLow,
      ofHigh,
    } = await twoJobsClaimed(['916333333333', '916444444444']);
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
      applied = applyReceipts(t.db, [
        { accountId, messageId: 'RL', status: 'read', at },
        { accountId, messageId: 'RH', status: 'delivered', at },
        { accountId, messageId: 'ELSEWHERE', status: 'delivered', at },
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
      .where(eq(messageJobRecipients.accountId, accountId))
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
    const accountId = await buildAccount(t, user.id);
    const JOBS = 24;
    for (let j = 0; j < JOBS; j++) {
      const chats = Array.from({ length: 10 }, (_, i) => `9170${String(j * 10 + i).padStart(8, '0')}`);
      await acceptSend(t.ctx, row, accountId, { chatIds: chats, content: 'Hi' }, 'individuals');
    }
    // Six nodes' stores recording sends at once, two receipt batches applied beside them.
    const stores = Array.from({ length: 6 }, () => createDispatchStore(t.db, t.ctx.nodeId, 60_000));
    const claimed = await stores[0]!.claim(accountId, JOBS * 10);
    expect(claimed).toHaveLength(JOBS * 10);
    const deadlocks = () => deadlocksOnceFlushed(t.db);
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
        accountId,
        messageId: `M${r.id}`,
        status: i % 2 ? ('read' as const) : ('delivered' as const),
        at,
      }));
      await Promise.all([
        ...now.map((r, i) => stores[i % 6]!.recordSent(r.id, { messageId: `M${r.id}` })),
        ...[receipts.filter((_, i) => i % 2 === 0), receipts.filter((_, i) => i % 2 === 1).reverse()].map(
          (batch) => applyReceipts(t.db, batch).catch((err) => receiptErrors.push(err)),
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
    expect(await deadlocks()).toBe(before);
  });
});
