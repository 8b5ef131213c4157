import { and, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { loginFailures } from '../db/schema.ts';
import { AppError } from '../errors.ts';

/** Failures older than this no longer count. */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

const accountKey = (username: string) => `user:${username.trim().toLowerCase()}`;
const addressKey = (ip: string) => `ip:${ip}`;

/**
 * Refuses (429) a sign-in when the account or the client address has too many recent failures.
 * Counted in the database, so every process sees them and no flood of other names evicts them.
 */
export async function checkLoginAllowed(
  db: Db,
  config: Pick<Config, 'loginRateLimit' | 'loginIpFailureLimit'>,
  username: string,
  ip: string,
): Promise<void> {
  const account = accountKey(username);
  const address = addressKey(ip);
  const rows = await db
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
}

/** Counts a wrong password or code against the account and the address; drops expired rows on the way. */
export async function recordLoginFailure(db: Db, username: string, ip: string): Promise<void> {
  await db.insert(loginFailures).values([{ key: accountKey(username) }, { key: addressKey(ip) }]);
  await db.delete(loginFailures).where(lt(loginFailures.failedAt, new Date(Date.now() - LOGIN_WINDOW_MS)));
}

/** A successful sign-in clears the account's count (not the address's: a sprayer's one hit must not reset it). */
export async function clearAccountFailures(db: Db, username: string): Promise<void> {
  await db.delete(loginFailures).where(inArray(loginFailures.key, [accountKey(username)]));
}
