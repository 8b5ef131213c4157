import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/client.ts';
import { buildSession } from './fakes/messaging.ts';
import { bearer, buildUser, createTestApp, DB_KINDS, loginToken, type TestApp } from './helpers.ts';

const STATUSES = ['pending', 'scheduled', 'processing', 'completed', 'failed'] as const;

/** GET /api/message-jobs/:userId pages, filters, searches and counts on the server. */
describe.each(DB_KINDS)('jobs list at scale (%s)', (kind) => {
  let t: TestApp;
  let token: string;
  let userId: string;
  const JOBS = 530;

  beforeAll(async () => {
    t = await createTestApp(kind);
    const user = await buildUser(t, { credits: 0 });
    userId = user.id;
    token = await loginToken(t.app, user.username);
    const sessionId = await buildSession(t, user.id);
    // 530 finished and waiting jobs over 530 hours, some at the same instant (the keyset's tie).
    await t.db.execute(
      sql`INSERT INTO message_jobs (id, user_id, session_id, audience, message_type, content, status, total,
                                    sent_count, failed_count, created_at)
          SELECT 'job-' || lpad(i::text, 4, '0'), ${user.id}, ${sessionId}, 'individuals', 'text',
                 CASE WHEN i % 10 = 0 THEN 'Diwali offer ' || i ELSE 'Order update ' || i END,
                 (ARRAY['pending','scheduled','processing','completed','failed'])[1 + i % 5], 3,
                 CASE WHEN i % 5 = 3 THEN 3 WHEN i % 5 = 4 THEN 2 ELSE 0 END,
                 CASE WHEN i % 5 = 4 THEN 1 ELSE 0 END,
                 timestamptz '2026-11-01T00:00:00Z' - ((i / 2) * interval '1 hour')
          FROM generate_series(1, ${JOBS}) AS i`,
    );
  });
  afterAll(() => t.close());

  const list = (query: string) =>
    t.app.inject({ method: 'GET', url: `/api/message-jobs/${userId}?${query}`, headers: bearer(token) });

  it('pages through every job by cursor, newest first, none twice or missing, the same order as by offset', async () => {
    const byCursor: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const res = await list(`limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      byCursor.push(...body.jobs.map((j: { id: string }) => j.id));
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    expect(byCursor).toHaveLength(JOBS);
    expect(new Set(byCursor).size).toBe(JOBS);
    const byOffset: string[] = [];
    for (let offset = 0; offset < JOBS; offset += 100) {
      byOffset.push(
        ...(await list(`limit=100&offset=${offset}`)).json().jobs.map((j: { id: string }) => j.id),
      );
    }
    expect(byCursor).toEqual(byOffset);
  });

  it("gives each tab's total and the summary from the database's own counts", async () => {
    const counts = await queryRows<{ status: string; n: number }>(
      t.db,
      sql`SELECT status, count(*)::int AS n FROM message_jobs WHERE user_id = ${userId} GROUP BY status`,
    );
    const db = Object.fromEntries(counts.map((c) => [c.status, c.n]));
    const all = (await list('limit=10')).json();
    expect(all.total).toBe(JOBS);
    expect(all.summary.jobs).toBe(JOBS);
    for (const s of STATUSES) expect(all.summary.byStatus[s]).toBe(db[s] ?? 0);
    expect(all.summary.byStatus.paused).toBe(0);
    expect(all.summary.recipients).toBe(JOBS * 3);
    const failed = (await list('status=failed&limit=1000')).json();
    expect(failed.total).toBe(db.failed);
    expect(failed.jobs).toHaveLength(db.failed);
    expect(failed.jobs.every((j: { status: string }) => j.status === 'failed')).toBe(true);
    const active = (await list('status=active&limit=1')).json();
    expect(active.total).toBe((db.pending ?? 0) + (db.processing ?? 0));
  });

  it('searches job ids and message text in any case, within the date range', async () => {
    const offers = (await list('q=DIWALI&limit=1000')).json();
    expect(offers.total).toBe(53);
    expect(
      offers.jobs.every((j: { messageContent: string }) => j.messageContent.startsWith('Diwali offer')),
    ).toBe(true);
    expect((await list('q=job-012&limit=1000')).json().total).toBe(10);
    // Literal wildcards are searched as text.
    expect((await list('q=%25&limit=10')).json().total).toBe(0);
    const ranged = (await list('q=diwali&from=2026-10-31&to=2026-10-31&limit=1000')).json();
    expect(ranged.total).toBe(ranged.jobs.length);
    expect(ranged.total).toBeGreaterThan(0);
    expect(ranged.total).toBeLessThan(53);
  });

  it('refuses a cursor it did not make', async () => {
    const res = await list('cursor=not-a-cursor');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Invalid cursor');
  });
});
