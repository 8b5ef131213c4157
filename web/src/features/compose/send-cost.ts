import type { Account, CreditPrices } from '@wa/contract';
import type { ChargeShare } from '../../components/charge/charge-lines.ts';
import { priceKindOf } from '../../lib/capabilities.ts';

export type PriceKind = keyof CreditPrices;

/** The kinds of the accounts that share a send (the picked one first, then `sessionIds`). */
export function kindsOf(accounts: readonly Account[], accountIds: readonly (string | null)[]): PriceKind[] {
  const ids = accountIds.filter((id): id is string => id !== null);
  if (ids.length === 0) return ['linked'];
  return ids.map((id) => priceKindOf(accounts.find((s) => s.sessionId === id)));
}

/**
 * A send's shares by kind of account, for its confirmation: one kind takes every recipient; over
 * kinds the server splits them by what each account may still send today (null: not known before).
 */
export function chargeShares(
  kinds: readonly PriceKind[],
  prices: CreditPrices,
  count: number,
): ChargeShare[] {
  const distinct = [...new Set(kinds)];
  return distinct.map((kind) => ({
    kind,
    price: prices[kind],
    recipients: distinct.length === 1 ? count : null,
  }));
}

/** How many recipients the balance pays for at the dearest of the accounts' prices. */
export const affordable = (balance: number, perAccount: readonly number[]): number =>
  Math.floor(balance / Math.max(1, ...perAccount));
