import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/transport/cloud/tier-counter.ts';
import { createTierPool } from '../../src/transport/cloud/tier-pool.ts';

/** The counters the numbers of one business account share (tier-pool.ts; Meta's Messaging Limits page). */
describe('the tier pool', () => {
  const T0 = Date.UTC(2026, 10, 25, 10);

  it('gives the numbers of one business account one counter, started once from their recent sends', async () => {
    const pool = createTierPool();
    let reads = 0;
    const recent = async () => {
      reads++;
      // One send 25 hours ago (out of the window), two within it.
      return [
        { to: '911', at: new Date(T0 - DAY_MS - 3_600_000) },
        { to: '912', at: new Date(T0 - 3_600_000) },
        { to: '913', at: new Date(T0 - 60_000) },
      ];
    };
    const [a, b] = await Promise.all([
      pool.join('waba-1', 3, recent, T0),
      pool.join('waba-1', 3, recent, T0),
    ]);
    expect(a).toBe(b);
    expect(reads).toBe(1);
    expect(a.counter.used(T0)).toBe(2);
    // One number takes the last place; the other then finds none for a new recipient.
    expect(a.counter.record('914', T0)).toBe(true);
    expect(b.counter.record('915', T0)).toBe(false);
    expect(b.counter.record('912', T0)).toBe(true);
    // Another business account counts on its own.
    const other = await pool.join('waba-2', 3, async () => [], T0);
    expect(other).not.toBe(a);
    expect(other.counter.remaining(T0)).toBe(3);
  });

  it('raises the shared limit to the highest tier a number reports, keeping what was counted', async () => {
    const pool = createTierPool();
    const shared = await pool.join('waba-1', 1, async () => [{ to: '911', at: new Date(T0) }], T0);
    expect(shared.counter.allows('912', T0)).toBe(false);
    await pool.join('waba-1', 2000, async () => [], T0);
    expect(shared.counter.limit).toBe(2000);
    expect(shared.counter.used(T0)).toBe(1);
    expect(shared.counter.allows('912', T0)).toBe(true);
    // A number reporting a lower tier does not lower it.
    await pool.join('waba-1', 250, async () => [], T0);
    expect(shared.counter.limit).toBe(2000);
  });
});
