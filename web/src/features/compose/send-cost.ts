import type { CreditPrices, Session } from '@wa/contract';
import { formatNumber } from '../../lib/format.ts';

/** What a send costs: exact when its accounts are of one kind, a range when a spread mixes kinds. */
export type SendCredits = { min: number; max: number };

/** The kind of account a session is for its price: a Cloud API number, or a linked phone. */
export const priceKind = (s: Pick<Session, 'kind'> | undefined): keyof CreditPrices =>
  s?.kind === 'cloud' ? 'cloud' : 'linked';

export type PriceKind = keyof CreditPrices;

/** The kinds of the accounts that share a send (the picked one first, then `sessionIds`). */
export function kindsOf(sessions: readonly Session[], sessionIds: readonly (string | null)[]): PriceKind[] {
  const ids = sessionIds.filter((id): id is string => id !== null);
  if (ids.length === 0) return ['linked'];
  return ids.map((id) => priceKind(sessions.find((s) => s.sessionId === id)));
}

/**
 * The credits `count` recipients cost over accounts priced `perAccount`: the server splits them
 * by what each account may still send today, so over kinds of different prices the cost lies
 * between all at the cheapest and all at the dearest (the answer gives the exact figure).
 */
export function sendCredits(count: number, perAccount: readonly number[]): SendCredits {
  return { min: count * Math.min(...perAccount), max: count * Math.max(...perAccount) };
}

/** How many recipients the balance pays for at the dearest of the accounts' prices. */
export const affordable = (balance: number, perAccount: readonly number[]): number =>
  Math.floor(balance / Math.max(1, ...perAccount));

/** 'Each recipient costs 2 credits': the price, or each kind's price in a spread over kinds. */
export function priceText(kinds: readonly PriceKind[], prices: CreditPrices): string {
  const credits = (n: number) => (n === 1 ? 'one credit' : `${formatNumber(n)} credits`);
  const mixed = kinds.includes('linked') && kinds.includes('cloud') && prices.linked !== prices.cloud;
  return mixed
    ? `Each recipient costs ${credits(prices.linked)} through a linked phone and ${credits(prices.cloud)} through a Cloud API account`
    : `Each recipient costs ${credits(prices[kinds[0] ?? 'linked'])}`;
}
