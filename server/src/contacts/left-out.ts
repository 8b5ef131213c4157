import type { Db } from '../db/client.ts';
import { withoutConsentAmong } from './consent.ts';
import { erasedAmong } from './erasure-token.ts';
import { optedOutAmong } from './service.ts';

/**
 * What a one-to-one send leaves out before credits are reserved: numbers that opted out or were
 * erased (both count as opted out), and, when the user must send only with consent, those
 * without it.
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
  const rest = numbers.filter((n) => !optedOut.has(n));
  return { optedOut, noConsent: await withoutConsentAmong(db, user.id, rest) };
}
