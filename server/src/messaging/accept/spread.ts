import type { Db } from '../../db/client.ts';
import { capsToday, type PolicyDefaults, resolvePolicy } from '../limits/allowance.ts';
import { localDayStart } from '../limits/clock.ts';
import { countSentSince, findPolicy } from '../limits/repository.ts';

/**
 * Spreading one job over several accounts: the recipients are split when the
 * job is accepted, in proportion to what each account may still send today.
 */

/**
 * How many more one-to-one messages the account may send today: the smaller of what its daily
 * limit and its warm-up cap leave (Infinity when neither applies).
 */
export async function remainingAllowanceToday(
  db: Db,
  accountId: string,
  defaults: PolicyDefaults,
  now = new Date(),
): Promise<number> {
  const { row, linkedAt, health } = await findPolicy(db, accountId);
  const policy = resolvePolicy(row, defaults);
  const sent = await countSentSince(db, accountId, localDayStart(now, policy.timezone));
  // The caps as the account's health sets them (halved on watch).
  const caps = capsToday(policy, linkedAt, now, health);
  let left = Infinity;
  if (caps.daily !== null) left = Math.min(left, caps.daily - sent.all);
  if (caps.warmUp !== null) left = Math.min(left, caps.warmUp - sent.oneToOne);
  return Math.max(0, left);
}

/**
 * Which account (an index into `allowances`) sends each of `n` recipients, in order. Each
 * account's weight is its allowance; one with no limit counts as able to send them all (`n`, or
 * the largest limited allowance when that is more): with a limit of 10 and none, 100 recipients
 * split 9 / 91 and 10 split 5 / 5; with 10 and 30 left, 20 split 5 / 15.
 * When no account has any allowance left, all weigh the same (they send when the day turns).
 * Recipients are interleaved: the next goes to the account furthest behind its share, the
 * earlier account on a tie, so equal allowances alternate.
 */
export function splitByAllowance(n: number, allowances: readonly number[]): number[] {
  const k = allowances.length;
  if (k === 0) throw new Error('splitByAllowance: no account');
  const finite = allowances.filter((a) => Number.isFinite(a));
  const unlimited = Math.max(n, ...finite);
  let weights = allowances.map((a) => (Number.isFinite(a) ? Math.max(0, a) : unlimited));
  if (weights.every((w) => w === 0)) weights = weights.map(() => 1);
  const total = weights.reduce((a, b) => a + b, 0);
  const given = new Array<number>(k).fill(0);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i += 1) {
    let best = -1;
    let bestScore = Infinity;
    for (let j = 0; j < k; j += 1) {
      if (weights[j] === 0) continue;
      // (given + ½) / share: the smallest is the furthest behind (Sainte-Laguë).
      const score = (given[j]! + 0.5) / (weights[j]! / total);
      if (score < bestScore) {
        best = j;
        bestScore = score;
      }
    }
    out[i] = best;
    given[best] = given[best]! + 1;
  }
  return out;
}
