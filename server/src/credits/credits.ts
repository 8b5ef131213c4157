import type { LedgerReason } from '@wa/contract';
import { and, eq, gte, lte, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { creditLedger, users } from '../db/schema.ts';
import { badRequest } from '../errors.ts';

/** Balances are bigint in the database; above this a JavaScript number would lose units. */
export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

export type LedgerMeta = { jobId?: string | null; actorId?: string | null; note?: string | null };

/** One ledger row: the change and the balance after it. */
function writeLedger(
  db: Db,
  userId: string,
  delta: number,
  reason: LedgerReason,
  meta: LedgerMeta,
  balanceAfter: number,
) {
  return db.insert(creditLedger).values({
    userId,
    delta,
    reason,
    jobId: meta.jobId ?? null,
    actorId: meta.actorId ?? null,
    note: meta.note ?? null,
    balanceAfter,
  });
}

/**
 * Takes `amount` credits from a user if the balance allows it, and writes the ledger row.
 * One atomic `UPDATE ... WHERE credits >= amount`: concurrent debits can never overdraw.
 * Returns the new balance, or null when the balance is short. Call inside a transaction
 * when the debit must stand or fall with other writes.
 */
export async function debitCredits(
  db: Db,
  userId: string,
  amount: number,
  reason: LedgerReason,
  meta: LedgerMeta = {},
): Promise<number | null> {
  if (!Number.isInteger(amount) || amount < 0) throw new Error(`invalid debit ${amount}`);
  if (amount === 0) {
    const [row] = await db.select({ credits: users.credits }).from(users).where(eq(users.id, userId));
    return row ? row.credits : null;
  }
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(users)
      .set({ credits: sql`${users.credits} - ${amount}` })
      .where(and(eq(users.id, userId), gte(users.credits, amount)))
      .returning({ credits: users.credits });
    if (!row) return null;
    await writeLedger(tx, userId, -amount, reason, meta, row.credits);
    return row.credits;
  });
}

/** Gives `amount` credits back or adds them (grant, refund); writes the ledger row. Returns the new balance. */
export async function addCredits(
  db: Db,
  userId: string,
  amount: number,
  reason: LedgerReason,
  meta: LedgerMeta = {},
): Promise<number> {
  if (!Number.isInteger(amount) || amount < 0) throw new Error(`invalid credit ${amount}`);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(users)
      .set({ credits: sql`${users.credits} + ${amount}` })
      .where(and(eq(users.id, userId), lte(users.credits, MAX_BALANCE - amount)))
      .returning({ credits: users.credits });
    if (!row) {
      const [exists] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId));
      if (exists) throw badRequest('Balance would exceed the maximum');
      throw new Error(`no user ${userId}`);
    }
    if (amount > 0) await writeLedger(tx, userId, amount, reason, meta, row.credits);
    return row.credits;
  });
}

/** Sum of the ledger for a user: equals the balance at all times (ARCHITECTURE principle 2). */
export async function ledgerSum(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ sum: sql<string>`coalesce(sum(${creditLedger.delta}), 0)` })
    .from(creditLedger)
    .where(eq(creditLedger.userId, userId));
  return Number(row?.sum ?? 0);
}

/**
 * CTEs that refund, in the statement that failed or cancelled the recipients, what each recipient
 * was charged (its `price`): `perJob` names an earlier CTE with columns (job_id, user_id, credits). Each user's balance
 * is raised once and each job gets its ledger row, with the balance after it (a running sum per
 * user, so the ledger's chain stays exact when one statement refunds several jobs of one user).
 * Append after the CTE named `perJob`; the statement may then select from `refund_ledger`.
 */
export function refundCtes(perJob: string, note: SQL | string): SQL {
  const name = sql.raw(perJob);
  return sql`refund_users AS (
      SELECT user_id, sum(credits)::bigint AS total FROM ${name} WHERE credits > 0 GROUP BY user_id
    ), refund_credited AS (
      UPDATE users u SET credits = u.credits + ru.total
      FROM refund_users ru WHERE u.id = ru.user_id
      RETURNING u.id, u.credits AS after, ru.total
    ), refund_ledger AS (
      INSERT INTO credit_ledger (user_id, delta, reason, job_id, note, balance_after)
      SELECT p.user_id, p.credits, 'refund', p.job_id, ${note},
             c.after - c.total + sum(p.credits) OVER (PARTITION BY p.user_id ORDER BY p.job_id)
      FROM ${name} p JOIN refund_credited c ON c.id = p.user_id
      WHERE p.credits > 0
      ORDER BY p.user_id, p.job_id
      RETURNING id
    )`;
}

/**
 * The reverse of refundCtes, for recipients refunded as failed that turn out sent (a late answer
 * to a send that timed out): what each recipient was refunded (its `price`) debited again in the
 * same statement, with a 'send' ledger row per job and its running balance. A user whose balance no
 * longer covers it is not debited (credits never go negative; the recipient is shown sent either
 * way). `perJob` names an earlier CTE with columns (job_id, user_id, credits).
 */
export function reverseRefundCtes(perJob: string, note: SQL | string): SQL {
  const name = sql.raw(perJob);
  return sql`rerefund_users AS (
      SELECT user_id, sum(credits)::bigint AS total FROM ${name} WHERE credits > 0 GROUP BY user_id
    ), rerefund_debited AS (
      UPDATE users u SET credits = u.credits - ru.total
      FROM rerefund_users ru WHERE u.id = ru.user_id AND u.credits >= ru.total
      RETURNING u.id, u.credits AS after, ru.total
    ), rerefund_ledger AS (
      INSERT INTO credit_ledger (user_id, delta, reason, job_id, note, balance_after)
      SELECT p.user_id, -p.credits, 'send', p.job_id, ${note},
             c.after + c.total - sum(p.credits) OVER (PARTITION BY p.user_id ORDER BY p.job_id)
      FROM ${name} p JOIN rerefund_debited c ON c.id = p.user_id
      WHERE p.credits > 0
      ORDER BY p.user_id, p.job_id
      RETURNING id
    )`;
}
