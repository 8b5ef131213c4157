import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';

/** The erasure key, derived once per secret key (HKDF-SHA256, its own salt and label). */
const keys = new WeakMap<Buffer, Buffer>();
function erasureKey(secretKey: Buffer): Buffer {
  let key = keys.get(secretKey);
  if (!key) {
    key = Buffer.from(crypto.hkdfSync('sha256', secretKey, 'wa-erasure', 'v1', 32));
    keys.set(secretKey, key);
  }
  return key;
}

/**
 * The token that stands for an erased number of one user: an HMAC keyed from
 * SECRET_KEY, so it cannot be reversed or tried against the ~10^12 numbers without the key,
 * and differs per user. 128 bits in hex.
 */
export function erasureToken(secretKey: Buffer, userId: string, phone: string): string {
  const mac = crypto.createHmac('sha256', erasureKey(secretKey)).update(`${userId}:${phone}`).digest('hex');
  return `erased-${mac.slice(0, 32)}`;
}

/** Numbers of `numbers` that the user erased (their tokens are in `erasures`). */
export async function erasedAmong(
  db: Db,
  secretKey: Buffer | undefined,
  userId: string,
  numbers: string[],
): Promise<Set<string>> {
  if (!secretKey || numbers.length === 0) return new Set();
  const [any] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM erasures WHERE user_id = ${userId}`,
  );
  if (Number(any?.n ?? 0) === 0) return new Set();
  const byToken = new Map(numbers.map((n) => [erasureToken(secretKey, userId, n), n]));
  const rows = await queryRows<{ token: string }>(
    db,
    sql`SELECT token FROM erasures WHERE user_id = ${userId} AND token = ANY(${sql.param([...byToken.keys()])}::text[])`,
  );
  return new Set(rows.map((r) => byToken.get(r.token)!));
}
