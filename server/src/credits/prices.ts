import { AccountKind, type CreditPrices, DEFAULT_CREDIT_PRICES } from '@wa/contract';
import type { Db } from '../db/client.ts';
import { creditPrices } from '../db/schema.ts';

/** The credits per recipient of each kind now (1 for a kind no admin has priced). */
export async function readCreditPrices(db: Db): Promise<CreditPrices> {
  const rows = await db.select({ kind: creditPrices.kind, credits: creditPrices.credits }).from(creditPrices);
  const prices = { ...DEFAULT_CREDIT_PRICES };
  for (const r of rows) {
    const kind = AccountKind.safeParse(r.kind);
    if (kind.success) prices[kind.data] = r.credits;
  }
  return prices;
}

/** Sets the price of the kinds given; the other keeps its own. */
export async function writeCreditPrices(db: Db, prices: Partial<CreditPrices>): Promise<CreditPrices> {
  for (const kind of AccountKind.options) {
    const credits = prices[kind];
    if (credits === undefined) continue;
    await db
      .insert(creditPrices)
      .values({ kind, credits })
      .onConflictDoUpdate({ target: creditPrices.kind, set: { credits, updatedAt: new Date() } });
  }
  return readCreditPrices(db);
}

/** The price of one recipient sent by an account of `kind`. */
export const priceOfKind = (prices: CreditPrices, kind: AccountKind): number => prices[kind];
