import { type SQLWrapper, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { compactJobStats, pageIdsQuery, pageRowsQuery } from '../../src/messaging/jobs/repository.ts';
import { accountOwner, buildAccount } from '../fakes/messaging.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

const STATUSES = ['pending', 'scheduled', 'processing', 'completed', 'failed'] as const;

/** GET /api/message-jobs/:userId pages, filters, searches and counts on the server. */
describe.each(DB_KINDS)('jobs list at scale (%s)', (kind) => {
  const t = testAppFor(kind);
  let token: string;
  let userId: string;
  const JOBS = 530;

  beforeAll(async () => {
    const owner = await accountOwner(t, { credits: 0 });
    const { user, accountId } = owner;
    userId = user.id;
    token = owner.token;
    // 530 finished and waiting jobs over 530 hours, some at the same instant (the keyset's tie).
    await t.db.execute(
      sql`INSERT INTO message_jobs (id, user_id, session_id, audience, message_type, content, status, total,
                                    sent_count, failed_count, created_at)
          SELECT 'job-' || lpad(i::text, 4, '0'), ${user.id}, ${accountId}, 'individuals', 'text',
                 CASE WHEN i % 10 = 0 THEN 'Diwali offer ' || i ELSE 'Order update ' || i END,
                 (ARRAY['pending','scheduled','processing','completed','failed'])[1 + i % 5], 3,
                 CASE WHEN i % 5 = 3 THEN 3 WHEN i % 5 = 4 THEN 2 ELSE 0 END,
                 CASE WHEN i % 5 = 4 THEN 1 ELSE 0 END,
                 timestamptz '2026-11-01T00:00:00Z' - ((i / 2) * interval '1 hour')
          FROM generate_series(1, ${JOBS}) AS i`,
    );
  });

  const list = (query: string) =>
    t.app.inject({ method: 'GET', url: `/api/message-jobs/${userId}?${query}`, headers: bearer(token) });

  it('reads a page in the index’s order, without sorting the user’s jobs (first page, keyset, one status)', async () => {
    // Told to avoid a full scan, the planner shows whether the index gives the order: a Sort node
    // means every page sorts all of the user's jobs.
    const plan = async (q: SQLWrapper) =>
      t.db.transaction(async (tx) => {
        await tx.execute(sql`SET LOCAL enable_seqscan = off`);
        const rows = await queryRows<{ 'QUERY PLAN': string }>(tx, sql`EXPLAIN ${q}`);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    const after = { createdAt: new Date('2026-10-20T00:00:00Z'), id: 'job-0300' };
    for (const f of [
      { limit: 100, offset: 0 },
      { limit: 100, offset: 0, after },
      { limit: 100, offset: 0, statuses: ['failed' as const] },
    ]) {
      // The rows of a page that skips nothing, and the ids of one that skips by offset.
      for (const q of [pageRowsQuery(t.db, userId, f), pageIdsQuery(userId, { ...f, offset: 200 })]) {
        const text = await plan(q);
        expect(text, text).toMatch(/Index (Only )?Scan using message_jobs_user_(status_)?created_idx/);
        expect(text, text).not.toMatch(/Sort/);
      }
    }
  });

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

  const exportCsv = (query: string, who = token, user = userId) =>
    t.app.inject({
      method: 'GET',
      url: `/api/message-jobs/${user}/export.csv?${query}`,
      headers: bearer(who),
    });

  it('exports mis_report.csv: BOM, the spec columns, every job newest first, dates in the asked zone', async () => {
    const res = await exportCsv('tz=Asia/Kolkata');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toBe('attachment; filename="mis_report.csv"');
    expect(
      res.body.startsWith(
        '\uFEFFJob ID,Phone Number,Total Messages,Success,Failed,Created Date,Message Type,Content Preview,Status,Delivered,Read,Replied,Undelivered,Content,Meta Category,Meta Cost (INR)\r\n',
      ),
    ).toBe(true);
    // The jobs, then the totals row.
    const all = res.body.slice(1).split('\r\n').slice(1, -1);
    const lines = all.slice(0, -1);
    expect(lines).toHaveLength(JOBS);
    const sum = (col: number) => lines.reduce((s, l) => s + Number(l.split(',')[col]), 0);
    // Receipts and replies with their rate of the sent messages: none came here.
    expect(all.at(-1)).toBe(
      `Total,,${sum(2)},${sum(3)},${sum(4)},,${JOBS} jobs,,,0 (0.0%),0 (0.0%),0 (0.0%),0 (0.0%),,,0.0000`,
    );
    expect(sum(2)).toBeGreaterThan(JOBS);
    const walked = (await list(`limit=1000`)).json().jobs.map((j: { id: string }) => j.id);
    expect(lines.map((l) => l.split(',')[0])).toEqual(walked);
    // job-0003: created 2026-11-01T00:00Z minus 1 hour = 31 Oct 23:00 UTC = 1 Nov 04:30 in India.
    const row = lines.find((l) => l.startsWith('job-0003,'));
    expect(row).toMatch(
      /^job-0003,\d+,3,3,0,"1\/11\/2026, 4:30:00 am",text,Order update 3,completed,0,0,0,0,Order update 3,,$/,
    );
    // The same instant for a reader in London.
    const london = (await exportCsv('tz=Europe/London')).body;
    expect(london).toContain('job-0003,');
    expect(london.split('\r\n').find((l) => l.startsWith('job-0003,'))).toContain(
      '"31/10/2026, 11:00:00 pm"',
    );
  });

  it("a job its account's policy holds reads 'waiting' with the reason, in the CSV, the list and the dashboard", async () => {
    const reason = 'Waiting: quiet hours until 13:30';
    await t.db.execute(
      sql`INSERT INTO session_policies (session_id, held_reason, held_until)
          SELECT session_id, ${reason}, now() + interval '1 hour' FROM message_jobs WHERE id = 'job-0005'
          ON CONFLICT (session_id) DO UPDATE SET held_reason = excluded.held_reason, held_until = excluded.held_until`,
    );
    try {
      const row = (await exportCsv('tz=Asia/Kolkata')).body
        .split('\r\n')
        .find((l) => l.startsWith('job-0005,'));
      expect(row).toMatch(/,text,Order update 5,waiting,/);
      const listed = (await list('limit=10')).json().jobs.find((j: { id: string }) => j.id === 'job-0005');
      expect(listed).toMatchObject({ status: 'pending', statusReason: reason });
      const dash = await t.app.inject({ method: 'GET', url: '/api/dashboard', headers: bearer(token) });
      const recent = dash.json().recentJobs.find((j: { id: string }) => j.id === 'job-0005');
      expect(recent).toMatchObject({ status: 'pending', statusReason: reason });
    } finally {
      await t.db.execute(sql`UPDATE session_policies SET held_reason = NULL, held_until = NULL`);
    }
  });

  it('exports only the range and search asked, and refuses a zone it does not know', async () => {
    const body = (await exportCsv('from=2026-10-31&to=2026-10-31&q=diwali')).body;
    const ranged = (await list('q=diwali&from=2026-10-31&to=2026-10-31&limit=1000')).json();
    const ids = body
      .slice(1)
      .split('\r\n')
      .slice(1, -2)
      .map((l) => l.split(',')[0]);
    expect(ids).toEqual(ranged.jobs.map((j: { id: string }) => j.id));
    const bad = await exportCsv('tz=Mars/Olympus');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Unknown time zone: Mars/Olympus');
  });

  it("reads a long history page by page, and nobody else's", async () => {
    const other = await buildUser(t, { credits: 0 });
    const otherToken = await loginToken(t.app, other.username);
    const accountId = await buildAccount(t, other.id);
    await t.db.execute(
      sql`INSERT INTO message_jobs (id, user_id, session_id, audience, message_type, content, status, total, created_at)
          SELECT 'long-' || lpad(i::text, 5, '0'), ${other.id}, ${accountId}, 'groups', 'poll',
                 '{"pollName":"=cmd|' || i || '","pollOptions":["a","b"],"options":{"allowMultipleAnswers":false}}',
                 'completed', 1, timestamptz '2026-11-01T00:00:00Z' - (i * interval '1 minute')
          FROM generate_series(1, 2345) AS i`,
    );
    const res = await exportCsv('', otherToken, other.id);
    const lines = res.body.slice(1).split('\r\n').slice(1, -2);
    expect(lines).toHaveLength(2345);
    expect(lines[0]).toMatch(/^long-00001,.*,poll,"'=cmd\|1",completed,0,0,0,0,"'=cmd\|1",,$/);
    expect(lines[2344]).toMatch(/^long-02345,/);
    expect((await exportCsv('', token, other.id)).statusCode).toBe(404);
  });

  it('keeps the summary equal to the jobs table through finishing, late failures, retries and deletes, before and after folding', async () => {
    // Changes the history the way the engine and the jobs API do: jobs finish, a finished job's
    // counters change (a late failure), a failed job is reopened by a retry, jobs are deleted.
    await t.db.execute(sql`UPDATE message_jobs SET status = 'completed', sent_count = 3
                           WHERE user_id = ${userId} AND status = 'processing' AND id < 'job-0200'`);
    await t.db.execute(sql`UPDATE message_jobs SET sent_count = 2, failed_count = 1
                           WHERE user_id = ${userId} AND status = 'completed' AND id LIKE 'job-00%'`);
    await t.db.execute(sql`UPDATE message_jobs SET status = 'pending', failed_count = 0
                           WHERE user_id = ${userId} AND status = 'failed' AND id LIKE 'job-01%'`);
    await t.db.execute(sql`DELETE FROM message_jobs WHERE user_id = ${userId} AND id LIKE 'job-03%'`);
    // Ranges in India's time (bounds at 18:30 UTC), in UTC days, open on either side, and none.
    const ranges = [
      '',
      'from=2026-10-20T18:30:00.000Z&to=2026-10-28T18:29:59.999Z',
      'from=2026-10-25',
      'to=2026-10-25',
      'from=2026-10-26T07:15:00.000Z&to=2026-10-26T09:00:00.000Z',
    ];
    const truth = async (query: string) => {
      const p = new URLSearchParams(query);
      const from = p.get('from');
      const to = p.get('to');
      const lo = from ? (from.length === 10 ? `${from}T00:00:00.000Z` : from) : null;
      const hi = to ? (to.length === 10 ? `${to}T23:59:59.999Z` : to) : null;
      const [row] = await queryRows<Record<string, string>>(
        t.db,
        sql`SELECT count(*)::text AS jobs, count(*) FILTER (WHERE status = 'failed')::text AS failed_jobs,
                   count(*) FILTER (WHERE status = 'completed')::text AS completed,
                   coalesce(sum(total), 0)::text AS recipients, coalesce(sum(sent_count), 0)::text AS sent,
                   coalesce(sum(failed_count), 0)::text AS failed
            FROM message_jobs WHERE user_id = ${userId}
              AND (${lo}::timestamptz IS NULL OR created_at >= ${lo}::timestamptz)
              AND (${hi}::timestamptz IS NULL OR created_at <= ${hi}::timestamptz)`,
      );
      return {
        jobs: Number(row!.jobs),
        completed: Number(row!.completed),
        failedJobs: Number(row!.failed_jobs),
        recipients: Number(row!.recipients),
        sent: Number(row!.sent),
        failed: Number(row!.failed),
      };
    };
    const check = async () => {
      for (const range of ranges) {
        const { summary } = (await list(`limit=1&${range}`)).json();
        const want = await truth(range);
        expect({
          jobs: summary.jobs,
          completed: summary.byStatus.completed,
          failedJobs: summary.byStatus.failed,
          recipients: summary.recipients,
          sent: summary.sent,
          failed: summary.failed,
        }).toEqual(want);
      }
    };
    await check();
    await compactJobStats(t.db);
    const [{ n }] = await queryRows<{ n: number }>(
      t.db,
      sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM job_stats WHERE user_id = ${userId}
                                          GROUP BY day, status HAVING count(*) > 1) AS dup`,
    );
    expect(n).toBe(0);
    await check();
  });
});
