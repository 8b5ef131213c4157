import { describe, expect, it } from 'vitest';
import { createTierCounter, DAY_MS, tierLimit } from '../../src/transport/cloud/tier-counter.ts';

const HOUR = 3_600_000;

describe('messaging limit tier counter', () => {
  it('reads Meta tier names as counts of recipients', () => {
    expect(['TIER_250', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'].map(tierLimit)).toEqual([
      250,
      2_000,
      10_000,
      100_000,
      Number.POSITIVE_INFINITY,
    ]);
    expect(tierLimit('TIER_1K')).toBe(1_000);
    expect(tierLimit(null)).toBe(250);
    expect(tierLimit('TIER_SOMETHING_NEW')).toBe(250);
  });

  it('counts each recipient once in a rolling 24 h, and refuses the 251st new one', () => {
    const counter = createTierCounter(tierLimit('TIER_250'));
    for (let i = 0; i < 250; i++)
      expect(counter.record(`91980000${String(i).padStart(4, '0')}`, i * 1000)).toBe(true);
    expect(counter.record('919800000000', 300_000)).toBe(true);
    expect(counter.used(300_000)).toBe(250);
    expect(counter.allows('919811111111', 300_000)).toBe(false);
    expect(counter.record('919811111111', 300_000)).toBe(false);
    expect(counter.used(300_000)).toBe(250);
    expect(counter.remaining(300_000)).toBe(0);
  });

  it('frees room 24 h after a recipient latest send, and says when', () => {
    const counter = createTierCounter(2);
    counter.record('a', 0);
    counter.record('b', 1 * HOUR);
    counter.record('a', 2 * HOUR);
    // a was sent again at 2 h: b (1 h) leaves first.
    expect(counter.nextRoomAt(3 * HOUR)).toBe(DAY_MS + 1 * HOUR);
    expect(counter.allows('c', DAY_MS + 1 * HOUR - 1)).toBe(false);
    expect(counter.allows('c', DAY_MS + 1 * HOUR)).toBe(true);
    expect(counter.used(DAY_MS + 2 * HOUR)).toBe(0);
  });

  it('plans a send before it starts: who fits now and who waits', () => {
    const counter = createTierCounter(5);
    counter.record('x', 0);
    counter.record('y', 0);
    const plan = counter.plan(['x', 'a', 'b', 'c', 'd', 'e', 'a'], 10);
    expect(plan).toEqual({ now: 4, waiting: 2 });
    expect(counter.used(10)).toBe(2);
  });

  it('unlimited never refuses; times may not go backwards', () => {
    const counter = createTierCounter(tierLimit('TIER_UNLIMITED'));
    for (let i = 0; i < 1000; i++) counter.record(String(i), i);
    expect(counter.remaining(1000)).toBe(Number.POSITIVE_INFINITY);
    expect(() => counter.used(5)).toThrow('times must not go backwards');
  });
});
