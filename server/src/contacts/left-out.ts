import { jidUser } from '@wa/contract';
import type { Db } from '../db/client.ts';
import { withoutConsentAmong } from './consent.ts';
import { erasedAmong } from './erasure-token.ts';
import { optedOutAmong } from './service.ts';

/**
 * What a one-to-one send leaves out before credits are reserved: numbers that opted out or were
 * erased (both count as opted out), and, when the user must send only with consent, those
 * without it. Each check is one look-up over the whole set of numbers.
 */
export async function leftOutOfSend(
  db: Db,
  secretKey: Buffer | undefined,
  user: { id: string; consentRequired: boolean },
  numbers: string[],
): Promise<{ optedOut: Set<string>; noConsent: Set<string> }> {
  const optedOut = await optedOutAmong(db, user.id, numbers);
  for (const n of await erasedAmong(db, secretKey, user.id, numbers)) optedOut.add(n);
  if (!user.consentRequired) return { optedOut, noConsent: new Set() };
  const rest = optedOut.size === 0 ? numbers : numbers.filter((n) => !optedOut.has(n));
  return { optedOut, noConsent: await withoutConsentAmong(db, user.id, rest) };
}

/**
 * The chat ids of a one-to-one send that the rules of `leftOutOfSend` keep, in order, and the
 * numbers they leave out (as the answer's `skipped` lists them). `keep` says which of the given
 * ids stay (for lists kept beside them); null when all do.
 */
export async function sendableChats(
  db: Db,
  secretKey: Buffer | undefined,
  user: { id: string; consentRequired: boolean },
  chatIds: string[],
): Promise<{ chatIds: string[]; optedOut: string[]; noConsent: string[]; keep: boolean[] | null }> {
  const numbers = chatIds.map(jidUser);
  const out = await leftOutOfSend(db, secretKey, user, numbers);
  if (out.optedOut.size === 0 && out.noConsent.size === 0)
    return { chatIds, optedOut: [], noConsent: [], keep: null };
  const keep = numbers.map((n) => !out.optedOut.has(n) && !out.noConsent.has(n));
  return {
    chatIds: chatIds.filter((_, i) => keep[i]),
    optedOut: numbers.filter((n) => out.optedOut.has(n)),
    noConsent: numbers.filter((n) => out.noConsent.has(n)),
    keep,
  };
}
