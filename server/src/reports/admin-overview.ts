import type { AdminOverviewResponse } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';

const DAYS = 30;

/** The UTC days of the chart, oldest first, as YYYY-MM-DD. */
function lastDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: DAYS }, (_, i) =>
    new Date(today - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

/**
 * The admin's overview of the users it manages: this month's spending, jobs and failures, what
 * became of the messages sent (delivered, read, replied, undelivered), linked accounts, last sign-in, and messages per day for 30 days. One query per figure,
 * each grouped by user over the admin's users only.
 */
export async function adminOverview(
  db: Db,
  adminId: string,
  now = new Date(),
): Promise<Omit<AdminOverviewResponse, 'success'>> {
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const days = lastDays(now);
  const chartStart = new Date(`${days[0]}T00:00:00.000Z`);
  const managed = sql`(SELECT id FROM users WHERE managed_by = ${adminId})`;

  const [people, spent, jobs, accounts, signIns, perDay] = await Promise.all([
    queryRows<{ id: string; name: string; username: string; disabled: boolean; credits: string }>(
      db,
      sql`SELECT id, name, username, disabled, credits::text FROM users WHERE managed_by = ${adminId} ORDER BY lower(name), id`,
    ),
    queryRows<{ user_id: string; used: string }>(
      db,
      sql`SELECT user_id, (-sum(delta))::text AS used FROM credit_ledger
          WHERE user_id IN ${managed} AND reason IN ('send', 'retry', 'refund') AND created_at >= ${monthStart}
          GROUP BY user_id`,
    ),
    queryRows<{
      user_id: string;
      jobs: number;
      sent: number;
      failed: number;
      delivered: number;
      read: number;
      replied: number;
      undelivered: number;
    }>(
      db,
      sql`SELECT user_id, count(*)::int AS jobs, sum(sent_count)::int AS sent, sum(failed_count)::int AS failed,
                 sum(delivered_count)::int AS delivered, sum(read_count)::int AS read,
                 sum(replied_count)::int AS replied, sum(undelivered_count)::int AS undelivered
          FROM message_jobs WHERE user_id IN ${managed} AND created_at >= ${monthStart}
          GROUP BY user_id`,
    ),
    queryRows<{ user_id: string; total: number; connected: number }>(
      db,
      sql`SELECT user_id, count(*)::int AS total, count(*) FILTER (WHERE status = 'CONNECTED')::int AS connected
          FROM wa_sessions WHERE user_id IN ${managed} GROUP BY user_id`,
    ),
    queryRows<{ user_id: string; last: string }>(
      db,
      sql`SELECT user_id, to_char(max(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last
          FROM auth_tokens WHERE user_id IN ${managed} GROUP BY user_id`,
    ),
    queryRows<{ day: string; sent: number; failed: number }>(
      db,
      sql`SELECT to_char(coalesce(r.sent_at, r.updated_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                 count(*) FILTER (WHERE r.status = 'sent')::int AS sent,
                 count(*) FILTER (WHERE r.status = 'failed')::int AS failed
          FROM message_jobs j JOIN message_job_recipients r ON r.job_id = j.id
          WHERE j.user_id IN ${managed}
            AND (j.finished_at IS NULL OR j.finished_at >= ${chartStart})
            AND r.status IN ('sent', 'failed')
            AND coalesce(r.sent_at, r.updated_at) >= ${chartStart}
          GROUP BY 1`,
    ),
  ]);

  const byUser = <T extends { user_id: string }>(rows: T[]) => new Map(rows.map((r) => [r.user_id, r]));
  const spentOf = byUser(spent);
  const jobsOf = byUser(jobs);
  const accountsOf = byUser(accounts);
  const signInOf = byUser(signIns);
  const rate = (failed: number, sent: number) => (failed + sent > 0 ? failed / (failed + sent) : null);

  const users = people.map((p) => {
    const j = jobsOf.get(p.id);
    const a = accountsOf.get(p.id);
    return {
      id: p.id,
      name: p.name,
      username: p.username,
      disabled: p.disabled,
      balance: Number(p.credits),
      creditsUsedThisMonth: Number(spentOf.get(p.id)?.used ?? 0),
      jobsThisMonth: j?.jobs ?? 0,
      failureRateThisMonth: j ? rate(j.failed, j.sent) : null,
      accountsConnected: a?.connected ?? 0,
      accountsTotal: a?.total ?? 0,
      lastSignInAt: signInOf.get(p.id)?.last ?? null,
      deliveryThisMonth: {
        sent: j?.sent ?? 0,
        delivered: j?.delivered ?? 0,
        read: j?.read ?? 0,
        replied: j?.replied ?? 0,
        undelivered: j?.undelivered ?? 0,
      },
    };
  });
  const sum = (f: (u: (typeof users)[number]) => number) => users.reduce((n, u) => n + f(u), 0);
  const sentAll = jobs.reduce((n, j) => n + j.sent, 0);
  const failedAll = jobs.reduce((n, j) => n + j.failed, 0);
  const dayRows = new Map(perDay.map((d) => [d.day, d]));
  return {
    users,
    totals: {
      users: users.length,
      balance: sum((u) => u.balance),
      creditsUsedThisMonth: sum((u) => u.creditsUsedThisMonth),
      jobsThisMonth: sum((u) => u.jobsThisMonth),
      failureRateThisMonth: rate(failedAll, sentAll),
      accountsConnected: sum((u) => u.accountsConnected),
      accountsTotal: sum((u) => u.accountsTotal),
      deliveryThisMonth: {
        sent: sentAll,
        delivered: sum((u) => u.deliveryThisMonth.delivered),
        read: sum((u) => u.deliveryThisMonth.read),
        replied: sum((u) => u.deliveryThisMonth.replied),
        undelivered: sum((u) => u.deliveryThisMonth.undelivered),
      },
    },
    messagesPerDay: days.map((day) => ({
      day,
      sent: dayRows.get(day)?.sent ?? 0,
      failed: dayRows.get(day)?.failed ?? 0,
    })),
  };
}
