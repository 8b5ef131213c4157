import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/client.ts';
import { creditLedger, waChannels } from '../src/db/schema.ts';
import { DEMO_USERS, seedDemo } from '../src/demo/seed.ts';
import { type Engine, startEngine } from '../src/engine.ts';
import { findUserByUsername } from '../src/users/repository.ts';
import { expectLedgerChain } from './fakes/messaging.ts';
import { createTestApp, DB_KINDS, type TestApp } from './helpers.ts';

describe.each(DB_KINDS)('the demo seed on %s', (kind) => {
  let t: TestApp;
  let engine: Engine;
  beforeAll(async () => {
    t = await createTestApp(kind, { SIMULATOR_LINK_AFTER_MS: '3600000' });
    engine = await startEngine(t.ctx);
  });
  afterAll(async () => {
    await engine.stop();
    await t.close();
  });

  it('writes its history through the engine: counters from the recipients, failures refunded, the ledger a chain', async () => {
    expect(await seedDemo(t.ctx)).toBe(true);
    const shop = (await findUserByUsername(t.db, DEMO_USERS.shop.username))!;
    const history = await queryRows<{
      id: string;
      status: string;
      total: number;
      sent_count: number;
      failed_count: number;
      sent: number;
      failed: number;
      finished_at: Date | null;
      last_sent: Date | null;
    }>(
      t.db,
      sql`SELECT j.id, j.status, j.total, j.sent_count, j.failed_count, j.finished_at,
                 count(*) FILTER (WHERE r.status = 'sent')::int AS sent,
                 count(*) FILTER (WHERE r.status = 'failed')::int AS failed,
                 max(r.sent_at) AS last_sent
          FROM message_jobs j JOIN message_job_recipients r ON r.job_id = j.id
          WHERE j.user_id = ${shop.id} AND j.created_at < now() - interval '1 day'
          GROUP BY j.id`,
    );
    expect(history.length).toBeGreaterThan(5);
    expect(history.some((j) => j.failed > 0)).toBe(true);
    for (const job of history) {
      expect([job.sent_count, job.failed_count]).toEqual([job.sent, job.failed]);
      expect(job.sent + job.failed).toBe(job.total);
      expect(job.status).toBe(job.failed > 0 ? 'failed' : 'completed');
      // The times are the history's, not the seed's.
      expect(new Date(job.finished_at!).getTime()).toBeLessThan(Date.now() - 86_400_000);
      if (job.last_sent) expect(new Date(job.last_sent).getTime()).toBeLessThan(Date.now() - 86_400_000);
      const refunds = await t.db
        .select()
        .from(creditLedger)
        .where(and(eq(creditLedger.jobId, job.id), eq(creditLedger.reason, 'refund')));
      expect(refunds.map((r) => r.delta)).toEqual(job.failed > 0 ? [job.failed] : []);
    }
    await expectLedgerChain(t.db, shop.id);
    // Issue 31: a list whose consent was recorded at import, and a customer who opted out in Hindi.
    const consented = await queryRows<{ name: string; purpose: string; file_name: string; n: number }>(
      t.db,
      sql`SELECT l.name, g.purpose, g.file_name, count(c.*)::int AS n
          FROM contact_lists l JOIN consent_grants g ON g.list_id = l.id
          JOIN contacts c ON c.list_id = l.id AND c.consent_grant_id = g.id
          WHERE l.user_id = ${shop.id} GROUP BY l.name, g.purpose, g.file_name`,
    );
    expect(consented).toEqual([
      {
        name: 'Regular customers',
        purpose: 'Order updates and festival offers',
        file_name: 'regular-customers.csv',
        n: 8,
      },
    ]);
    const hindi = await queryRows<{ keyword: string; language: string }>(
      t.db,
      sql`SELECT keyword, language FROM opt_outs WHERE user_id = ${shop.id} AND source = 'reply'`,
    );
    expect(hindi).toEqual([{ keyword: 'बंद करो', language: 'hi' }]);
    // Issue 31: a status to the regular customers, less the one who opted out, one credit each.
    // (The engine may already have posted it: a number not on WhatsApp is refunded.)
    const [status] = await queryRows<{ total: number; background: string; charged: number; kept: number }>(
      t.db,
      sql`SELECT j.total, j.status_style->>'backgroundColor' AS background, j.total - j.failed_count AS kept,
                 (SELECT -sum(l.delta)::int FROM credit_ledger l WHERE l.job_id = j.id) AS charged
          FROM message_jobs j WHERE j.user_id = ${shop.id} AND j.message_type = 'status'`,
    );
    expect(status).toMatchObject({ total: 7, background: '#FF7A00' });
    expect(status!.charged).toBe(status!.kept);
  });

  it('has one channel, created through the account, and one post to it sent as a job of one recipient', async () => {
    const shop = (await findUserByUsername(t.db, DEMO_USERS.shop.username))!;
    const channels = await t.db.select().from(waChannels);
    expect(channels.map((c) => [c.name, c.role, c.followers])).toEqual([
      ['Sharma Sarees Offers', 'OWNER', 0],
    ]);
    const posts = await queryRows<{ total: number; chat_id: string; chat_name: string; status: string }>(
      t.db,
      sql`SELECT j.total, r.chat_id, r.chat_name, r.status FROM message_jobs j
          JOIN message_job_recipients r ON r.job_id = j.id
          WHERE j.user_id = ${shop.id} AND r.chat_id LIKE '%@newsletter'`,
    );
    expect(posts.map((p) => [p.total, p.chat_id, p.chat_name])).toEqual([
      [1, channels[0]!.channelId, 'Sharma Sarees Offers'],
    ]);
  });
});
