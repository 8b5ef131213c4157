import type { LedgerReason } from '@wa/contract';
import { and, eq, gte, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { creditLedger, users } from '../db/schema.ts';
import { badRequest } from '../errors.ts';

/** Balances are bigint in the database; above this a JavaScript number would lose units. */
export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

export type LedgerMeta = { jobId?: string | null; actorId?: string | null; note?: string | null };

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
    await tx.insert(creditLedger).values({
      userId,
      delta: -amount,
      reason,
      jobId: meta.jobId ?? null,
      actorId: meta.actorId ?? null,
      note: meta.note ?? null,
      balanceAfter: row.credits,
    });
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
    if (amount > 0) {
      await tx.insert(creditLedger).values({
        userId,
        delta: amount,
        reason,
        jobId: meta.jobId ?? null,
        actorId: meta.actorId ?? null,
        note: meta.note ?? null,
        balanceAfter: row.credits,
      });
    }
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
