import { isBsuid, jidUser } from '@wa/contract';
import type { Db } from '../db/client.ts';
import { badRequest } from '../errors.ts';
import { withoutConsentAmong } from './consent.ts';
import { erasedAmong } from './erasure-token.ts';
import { optedOutAmong } from './opt-out-list.ts';
import { samePersonRepeats } from './people.ts';

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

/** The numbers a send left out, as its answer lists them (`skipped`), or nothing when none was. */
export type Skipped = { skipped?: { optedOut: string[]; noConsent?: string[]; needsCloudNumber?: string[] } };

/**
 * The one-to-one chat ids among `chatIds` that may receive a message of `user` (every path that
 * adds recipients: a send, a Status post, a job's edit), which of them to keep (null when all
 * are), and those left out, worked out per set: by `leftOutOfSend`, and the business-scoped user
 * ids when the send's accounts cannot write to one (`reachesBsuids` false: a linked phone; they are
 * left out before anything is charged). When none is left, a 400 with `empty`'s text for why.
 */
export async function sendableRecipients(
  db: Db,
  secretKey: Buffer | undefined,
  user: { id: string; consentRequired: boolean },
  chatIds: string[],
  empty: { optedOut: string; noConsent: string; needsCloudNumber?: string },
  reachesBsuids = false,
): Promise<{ chatIds: string[]; keep: boolean[] | null } & Skipped> {
  // A phone chat id's number, or a BSUID as it is.
  const numbers = chatIds.map(jidUser);
  const out = await leftOutOfSend(db, secretKey, user, numbers);
  const unreachable = new Set(reachesBsuids ? [] : numbers.filter(isBsuid));
  const repeats = await samePersonRepeats(db, user.id, numbers);
  if (out.optedOut.size === 0 && out.noConsent.size === 0 && unreachable.size === 0 && repeats.size === 0) {
    if (chatIds.length === 0) throw badRequest(empty.optedOut);
    return { chatIds, keep: null };
  }
  // A person named twice (their number and their BSUID) is written to once, like a repeated number.
  const keep = numbers.map(
    (n, i) => !out.optedOut.has(n) && !out.noConsent.has(n) && !unreachable.has(n) && !repeats.has(i),
  );
  const kept = chatIds.filter((_, i) => keep[i]);
  const optedOut = numbers.filter((n) => out.optedOut.has(n));
  const noConsent = numbers.filter((n) => out.noConsent.has(n));
  const needsCloudNumber = numbers.filter(
    (n) => unreachable.has(n) && !out.optedOut.has(n) && !out.noConsent.has(n),
  );
  if (kept.length === 0)
    throw badRequest(
      noConsent.length > 0
        ? empty.noConsent
        : optedOut.length > 0
          ? empty.optedOut
          : (empty.needsCloudNumber ?? empty.optedOut),
    );
  if (optedOut.length === 0 && noConsent.length === 0 && needsCloudNumber.length === 0)
    return { chatIds: kept, keep };
  return {
    chatIds: kept,
    keep,
    skipped: {
      optedOut,
      ...(noConsent.length > 0 ? { noConsent } : {}),
      ...(needsCloudNumber.length > 0 ? { needsCloudNumber } : {}),
    },
  };
}
