/** The dispatch part of `npm run bench` (BENCH_ONLY=dispatch): the real engine’s rate with 50 accounts, beside a bare-SQL floor. */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { queryRows } from '../../server/src/db/client.ts';
import { users } from '../../server/src/db/schema.ts';
import { startEngine } from '../../server/src/engine.ts';
import { acceptSend } from '../../server/src/messaging/accept/send.ts';
import { benchUser, linkedAccount, numbers, size } from './setup.ts';

export const ACCOUNTS = size(50, 10);
export const PER_ACCOUNT = Number(process.env.BENCH_PER_SESSION ?? size(200, 20));

/** PostgreSQL's count of updates of the recipients' table, and of those that were HOT (in place). */
export type Updates = { all: number; hot: number };

/** CPU seconds (user + system) of process `pid`, or null when it is not readable here. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * The CPU seconds of the bench database's PostgreSQL backends so far, when they run on this
 * machine (their /proc is readable), else null. (PGlite runs in this process: its CPU is the node figure's.)
 */
export async function databaseCpu(ctx: AppContext): Promise<number | null> {
  const rows = await queryRows<{ pid: number }>(
    ctx.db,
    sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`,
  ).catch(() => null);
  if (!rows || rows.length === 0) return null;
  let sum = 0;
  for (const { pid } of rows) {
    const s = cpuSeconds(pid);
    if (s === null) return null;
    sum += s;
  }
  return sum;
}

/**
 * The statistics' counts of recipient updates, once every backend has flushed its own: a backend
 * reports at most once a second, and within a second of going idle.
 */
async function recipientUpdates(ctx: AppContext): Promise<Updates> {
  await sleep(1500);
  const [row] = await queryRows<{ all: number; hot: number }>(
    ctx.db,
    sql`SELECT n_tup_upd::float8 AS "all", n_tup_hot_upd::float8 AS hot
        FROM pg_stat_user_tables WHERE relname = 'message_job_recipients'`,
  );
  return { all: row?.all ?? 0, hot: row?.hot ?? 0 };
}

/**
 * The rate, and the CPU seconds spent from the start to the last outcome: this process's (the
 * engine and its simulated transports) and the database's backends' (null when unreadable). Less
 * moved by the machine's load than the rate, which a busy 2-core machine moves by ±30 %.
 */
export type DispatchRound = { rate: number; lagMs: number; cpu: { node: number; database: number | null } };

/**
 * 50 linked accounts, one job each, all scheduled for the same instant: the rate is every
 * recipient's outcome divided by the time from that instant to the last outcome.
 */
export async function dispatchRate(ctx: AppContext, postgres: boolean): Promise<DispatchRound> {
  const user = await benchUser(ctx, ACCOUNTS * PER_ACCOUNT);
  const accountIds: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) accountIds.push(await linkedAccount(ctx, user.id, i));
  const engine = await startEngine(ctx);
  try {
    const until = Date.now() + 60_000;
    while (accountIds.some((s) => !engine.runtime.transportFor(s))) {
      if (Date.now() > until) throw new Error('accounts did not connect within 60 s');
      await sleep(100);
    }
    // Accepted as scheduled far ahead, then all made due at one instant.
    await acceptAnHourAhead(ctx, user, accountIds, 919_300_000_001, 'Benchmark');
    // 2 s ahead: the dispatcher's sweep (every second) runs at least once between this update and
    // the start, sees the start less than a sweep away and wakes the loops for it, as it does for
    // any scheduled job. 500 ms ahead, half the rounds started when the next sweep came, up to
    // half a second late (the first outcome 77-240 ms after the start in one run of three rounds).
    const startAt = new Date(Date.now() + 2000);
    await ctx.db.execute(
      sql`UPDATE message_job_recipients SET due_at = ${startAt.toISOString()}::timestamptz`,
    );
    for (const accountId of accountIds) ctx.events.emit('recipients-queued', accountId);
    // The engine's CPU is counted from the start: until then it only waits (its sweeps aside).
    await sleep(Math.max(0, startAt.getTime() - Date.now()));
    const nodeBefore = process.cpuUsage();
    const databaseBefore = postgres ? await databaseCpu(ctx) : null;
    const total = ACCOUNTS * PER_ACCOUNT;
    const deadline = startAt.getTime() + 600_000;
    for (;;) {
      const [row] = await queryRows<{ done: number }>(
        ctx.db,
        sql`SELECT coalesce(sum(sent_count + failed_count), 0)::int AS done FROM message_jobs WHERE user_id = ${user.id}`,
      );
      if ((row?.done ?? 0) >= total) break;
      if (Date.now() > deadline) throw new Error(`only ${row?.done} of ${total} after 10 minutes`);
      await sleep(20);
    }
    const elapsed = Date.now() - startAt.getTime();
    const node = process.cpuUsage(nodeBefore);
    const databaseAfter = postgres ? await databaseCpu(ctx) : null;
    const cpu = {
      node: (node.user + node.system) / 1e6,
      database: databaseBefore === null || databaseAfter === null ? null : databaseAfter - databaseBefore,
    };
    const [first] = await queryRows<{ lag: number }>(
      ctx.db,
      sql`SELECT (extract(epoch FROM min(r.sent_at)) * 1000 - ${startAt.getTime()})::int AS lag
          FROM message_job_recipients r JOIN message_jobs j ON j.id = r.job_id WHERE j.user_id = ${user.id}`,
    );
    const [failed] = await queryRows<{ n: number }>(
      ctx.db,
      sql`SELECT coalesce(sum(failed_count), 0)::int AS n FROM message_jobs WHERE user_id = ${user.id}`,
    );
    if (failed?.n) throw new Error(`${failed.n} of ${total} failed`);
    return { rate: (total * 1000) / elapsed, lagMs: first?.lag ?? 0, cpu };
  } finally {
    await engine.stop();
  }
}

/**
 * dispatchRate, and with `stats` (PostgreSQL: PGlite keeps no statistics) the round's updates of
 * recipients (due times, claims, sends, receipts) and how many were HOT, counted untimed after the
 * engine stopped.
 */
export async function dispatchRound(
  ctx: AppContext,
  stats: boolean,
): Promise<DispatchRound & { updates?: Updates }> {
  const before = stats ? await recipientUpdates(ctx) : undefined;
  const round = await dispatchRate(ctx, stats);
  if (!before) return round;
  const after = await recipientUpdates(ctx);
  return { ...round, updates: { all: after.all - before.all, hot: after.hot - before.hot } };
}

/**
 * A job of PER_ACCOUNT numbers (from `firstNumber` on, 10,000 apart per account) on each account,
 * scheduled an hour ahead: accepting 50 jobs takes a while, and a rate must measure sending only.
 */
async function acceptAnHourAhead(
  ctx: AppContext,
  user: Awaited<ReturnType<typeof benchUser>>,
  accountIds: string[],
  firstNumber: number,
  content: string,
): Promise<void> {
  const later = new Date(Date.now() + 3_600_000).toISOString();
  for (const [i, accountId] of accountIds.entries()) {
    const chatIds = numbers(PER_ACCOUNT, firstNumber + i * 10_000);
    await acceptSend(ctx, user, accountId, { chatIds, content, scheduleTime: later }, 'individuals');
  }
}

/**
 * The bare-SQL floor on the same database and pool: one loop per account, each round trip an
 * `UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1)` marking one recipient sent
 * (no transport, no counters, no ledger). Our dispatch rate is printed as a ratio of it.
 */
export async function floorRate(ctx: AppContext): Promise<number> {
  const user = await benchUser(ctx, ACCOUNTS * PER_ACCOUNT);
  const accountIds: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) accountIds.push(await linkedAccount(ctx, user.id, 500 + i));
  await acceptAnHourAhead(ctx, user, accountIds, 919_500_000_001, 'Floor');
  const started = performance.now();
  let done = 0;
  await Promise.all(
    accountIds.map(async (accountId) => {
      for (;;) {
        const rows = await queryRows(
          ctx.db,
          sql`UPDATE message_job_recipients SET status = 'sent', sent_at = now()
              WHERE id = (SELECT id FROM message_job_recipients
                          WHERE session_id = ${accountId} AND status = 'queued'
                          ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
              RETURNING id`,
        );
        if (rows.length === 0) return;
        done += 1;
      }
    }),
  );
  const elapsed = performance.now() - started;
  await ctx.db.delete(users).catch(() => {});
  return (done * 1000) / elapsed;
}
