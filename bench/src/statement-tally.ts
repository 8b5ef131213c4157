/**
 * Counts the statements this process sends to PostgreSQL, by their text (numbers and parameters
 * aside): what an idle node keeps doing, named. Wraps `pg.Client.prototype.query`, which the pool
 * and drizzle's transactions both reach; `stop()` restores it.
 */
import pg from 'pg';

export type StatementTally = { stop(): Map<string, number> };

/** The first words of a statement, its whitespace folded, as a key to count it by. */
const keyOf = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 90);

export function tallyStatements(): StatementTally {
  const counts = new Map<string, number>();
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : (q as { text?: string } | undefined)?.text;
    if (text) counts.set(keyOf(text), (counts.get(keyOf(text)) ?? 0) + 1);
    return original.apply(this, args);
  };
  return {
    stop() {
      proto.query = original;
      return counts;
    },
  };
}

/** The `n` most frequent statements, as `count × text`. */
export function topStatements(counts: Map<string, number>, n: number): string[] {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([text, count]) => `${count} × ${text}`);
}
