/** The Inbox part of `npm run bench` (BENCH_ONLY=inbox): the list's first page with 1,00,000 threads. */

import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { buildApp } from '../../server/src/http/app.ts';
import { benchAuth, benchUser, linkedAccount, size } from './setup.ts';

export const INBOX_THREADS = size(100_000, 2_000);

const p95 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.95)]!;

/**
 * One user with INBOX_THREADS people who each wrote once to one of the user's two accounts over a
 * year (a person, their number, a message and a thread each; one in ten unread, one in five done,
 * one in fifty opted out), then through the HTTP server: the first page of `GET /api/inbox`
 * (50 threads, newest first), the Unread filter's first page and the sidebar's count, each asked
 * 30 times after 5 not counted. Answers the p95 of each.
 */
export async function inboxAtScale(ctx: AppContext): Promise<string> {
  const user = await benchUser(ctx, 0);
  const accounts = [await linkedAccount(ctx, user.id, 995), await linkedAccount(ctx, user.id, 996)];
  const phone = sql`(919000000000 + i)::text`;
  const person = sql`md5('bench person ' || i)::uuid::text`;
  const at = sql`now() - (i * interval '315 seconds')`;
  await ctx.db.execute(
    sql`INSERT INTO people (id, user_id, created_at) SELECT ${person}, ${user.id}, ${at} FROM generate_series(1, ${INBOX_THREADS}) AS i`,
  );
  await ctx.db.execute(
    sql`INSERT INTO person_addresses (user_id, kind, value, person_id)
        SELECT ${user.id}, 'phone', ${phone}, ${person} FROM generate_series(1, ${INBOX_THREADS}) AS i`,
  );
  await ctx.db.execute(
    sql`INSERT INTO inbox_messages (user_id, person_id, session_id, direction, chat_id, message_id, type, text, at)
        SELECT ${user.id}, ${person}, (${sql.param(accounts)}::text[])[1 + i % 2], 'in', ${phone} || '@s.whatsapp.net',
               'BENCH' || i, 'text', 'Is the offer ' || i || ' still on?', ${at}
        FROM generate_series(1, ${INBOX_THREADS}) AS i`,
  );
  await ctx.db.execute(
    sql`INSERT INTO inbox_threads (person_id, user_id, session_id, name, last_text, last_type, last_direction,
                                   last_at, last_in_at, unread, state)
        SELECT ${person}, ${user.id}, (${sql.param(accounts)}::text[])[1 + i % 2], 'Customer ' || i,
               'Is the offer ' || i || ' still on?', 'text', 'in', ${at}, ${at},
               CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 5 = 0 THEN 'done' ELSE 'open' END
        FROM generate_series(1, ${INBOX_THREADS}) AS i`,
  );
  await ctx.db.execute(
    sql`INSERT INTO opt_outs (user_id, address_kind, phone_number, source)
        SELECT ${user.id}, 'phone', ${phone}, 'reply' FROM generate_series(50, ${INBOX_THREADS}, 50) AS i`,
  );
  // A year of history has long been visited by autovacuum (reads.ts says why it matters).
  await ctx.db.execute(sql`VACUUM ANALYZE people, person_addresses, inbox_messages, inbox_threads, opt_outs`);
  const app = await buildApp(ctx);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const headers = await benchAuth(app, user.username);
    const timed = async (path: string, check: (body: Record<string, unknown>) => boolean) => {
      const times: number[] = [];
      // The first 5 warm the server up (its first queries plan and load the pages): not counted.
      for (let i = -5; i < 30; i++) {
        const t0 = performance.now();
        const res = await fetch(`${address}${path}`, { headers });
        const body = (await res.json()) as Record<string, unknown>;
        if (i >= 0) times.push(performance.now() - t0);
        if (!res.ok || !check(body))
          throw new Error(`${path}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      }
      return `${p95(times).toFixed(1)} ms`;
    };
    const page = (body: Record<string, unknown>) =>
      (body.threads as unknown[]).length === 50 && body.nextCursor !== null;
    const first = await timed('/api/inbox', page);
    const unread = await timed('/api/inbox?state=unread', page);
    const count = await timed(
      '/api/inbox/counts',
      (body) => body.unreadThreads === Math.floor(INBOX_THREADS / 10),
    );
    return `p95: first page ${first}, Unread first page ${unread}, unread count ${count}`;
  } finally {
    await app.close();
  }
}
