import crypto from 'node:crypto';
import { and, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { loginFailures } from '../db/schema.ts';
import { AppError } from '../errors.ts';

/** Failures older than this no longer count. */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** The class of the advisory locks that make a check and its reservation one step. */
const THROTTLE_LOCK_CLASS = 727275;

const accountKey = (username: string) => `user:${username.trim().toLowerCase()}`;
const addressKey = (ip: string) => `ip:${ip}`;
/** A signed 32-bit number for the advisory lock of one key. */
const lockOf = (key: string) => crypto.createHash('sha256').update(key).digest().readInt32BE(0);

/** An attempt counted in advance: a failure until `succeeded` or `release` says otherwise. */
export type LoginAttempt = {
  /** The password and code were right: the account's count is cleared, the address's reservation dropped. */
  succeeded(): Promise<void>;
  /** The attempt tried no secret that was wrong (e.g. the code is still to come): it does not count. */
  release(): Promise<void>;
};

/**
 * Reserves one attempt of the account and the address before any password or code is checked:
 * refused (429) when either already has its limit of failures in the window, otherwise counted
 * as a failure at once. The count and the reservation are one step under an advisory lock per
 * key (taken in a fixed order), so N parallel requests check at most the limit's worth of
 * secrets, whatever N. Counted in the database: every process sees them.
 */
export async function reserveLoginAttempt(
  db: Db,
  config: Pick<Config, 'loginRateLimit' | 'loginIpFailureLimit'>,
  username: string,
  ip: string,
): Promise<LoginAttempt> {
  const account = accountKey(username);
  const address = addressKey(ip);
  const ids = await db.transaction(async (tx) => {
    for (const lock of [lockOf(account), lockOf(address)].sort((a, b) => a - b))
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${THROTTLE_LOCK_CLASS}::int, ${lock}::int)`);
    const rows = await tx
      .select({
        key: loginFailures.key,
        n: sql<number>`count(*)::int`,
        oldest: sql<string>`min(${loginFailures.failedAt})`,
      })
      .from(loginFailures)
      .where(
        and(
          inArray(loginFailures.key, [account, address]),
          gt(loginFailures.failedAt, new Date(Date.now() - LOGIN_WINDOW_MS)),
        ),
      )
      .groupBy(loginFailures.key);
    for (const row of rows) {
      const limit = row.key === account ? config.loginRateLimit : config.loginIpFailureLimit;
      if (row.n < limit) continue;
      const seconds = Math.max(
        1,
        Math.ceil((new Date(row.oldest).getTime() + LOGIN_WINDOW_MS - Date.now()) / 1000),
      );
      throw new AppError('rate_limited', `Too many login attempts. Please try again in ${seconds} seconds.`);
    }
    const inserted = await tx
      .insert(loginFailures)
      .values([{ key: account }, { key: address }])
      .returning({ id: loginFailures.id });
    return inserted.map((r) => r.id);
  });
  // Expired rows go on the way (outside the locked step: nobody waits on it).
  await db.delete(loginFailures).where(lt(loginFailures.failedAt, new Date(Date.now() - LOGIN_WINDOW_MS)));
  const release = async () => {
    await db.delete(loginFailures).where(inArray(loginFailures.id, ids));
  };
  return {
    release,
    // The address's other failures stay: a sprayer's one hit must not reset them.
    succeeded: async () => {
      await release();
      await db.delete(loginFailures).where(eq(loginFailures.key, account));
    },
  };
}
