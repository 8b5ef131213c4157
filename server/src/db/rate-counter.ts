import { sql } from 'drizzle-orm';
import { type Db, queryRows } from './client.ts';

/**
 * Counts one request of `key` in its window of `windowMs` (a window opens with the first request
 * after the last one closed, by the database's clock) and answers the count so far with the
 * milliseconds until the window closes. One upsert of one row per key: every route and node that
 * counts the same key against the same database shares the count.
 */
export async function countInWindow(
  db: Db,
  key: string,
  windowMs: number,
): Promise<{ count: number; resetMs: number }> {
  const open = sql`c.window_start > clock_timestamp() - make_interval(secs => ${windowMs / 1000})`;
  const [row] = await queryRows<{ count: number; reset_ms: number }>(
    db,
    sql`INSERT INTO rate_counters AS c (key, window_start, count) VALUES (${key}, clock_timestamp(), 1)
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN ${open} THEN c.count + 1 ELSE 1 END,
          window_start = CASE WHEN ${open} THEN c.window_start ELSE clock_timestamp() END
        RETURNING count,
          (extract(epoch FROM window_start - clock_timestamp()) * 1000 + ${windowMs})::float8 AS reset_ms`,
  );
  return { count: Number(row!.count), resetMs: Number(row!.reset_ms) };
}
