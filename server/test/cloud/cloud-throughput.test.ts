import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createThroughputLimiter, maxInWindow } from '../../src/transport/cloud/throughput-limiter.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('throughput limiter', () => {
  it('spaces sends 1000/80 ms apart by default', () => {
    const limiter = createThroughputLimiter();
    const starts = Array.from({ length: 5 }, () => limiter.reserve(1000));
    expect(starts).toEqual([1000, 1012.5, 1025, 1037.5, 1050]);
  });

  it('lets a burst start together after a quiet spell, and still never more than 80 in any second', () => {
    const limiter = createThroughputLimiter({ burst: 80 });
    const starts = Array.from({ length: 400 }, () => limiter.reserve(0));
    expect(starts.filter((t) => t === 0)).toHaveLength(80);
    expect(maxInWindow(starts)).toBe(80);
    expect(starts.at(-1)).toBeLessThan(4000 + 1000);
  });

  it('holds to perSecond in every 1 s window for any arrivals and burst (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 600 }),
        (perSecond, burstSeed, gaps) => {
          const limiter = createThroughputLimiter({ perSecond, burst: 1 + (burstSeed % perSecond) });
          let at = 0;
          const starts = gaps.map((gap) => {
            at += gap % 50;
            const start = limiter.reserve(at);
            expect(start).toBeGreaterThanOrEqual(at);
            return start;
          });
          expect(maxInWindow(starts)).toBeLessThanOrEqual(perSecond);
        },
      ),
    );
  });

  it('a rate that does not divide 1000 ms still gives at most that many a second', () => {
    // fast-check's counterexample before maxInWindow allowed for float rounding: 333.33… + 1000 − 333.33… < 1000.
    const limiter = createThroughputLimiter({ perSecond: 3 });
    const starts = Array.from({ length: 6 }, () => limiter.reserve(0));
    expect(maxInWindow(starts)).toBe(3);
    expect(starts[3]).toBe(1000);
  });

  it('pauseUntil holds every start after a 130429 until the given time', () => {
    const limiter = createThroughputLimiter();
    expect(limiter.reserve(0)).toBe(0);
    limiter.pauseUntil(5000);
    expect(limiter.reserve(10)).toBe(5000);
    expect(limiter.reserve(10)).toBe(5012.5);
  });

  it('refuses a burst above the rate', () => {
    expect(() => createThroughputLimiter({ perSecond: 80, burst: 81 })).toThrow(
      'burst: a whole number from 1 to perSecond (80)',
    );
  });

  it('10,000 sends to a Graph API answering in 50 ms reach 80 a second and never more (fake timers)', async () => {
    vi.useFakeTimers({ now: 0, loopLimit: 100_000 });
    const limiter = createThroughputLimiter({ now: () => Date.now() });
    const starts: number[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const graphApi = () =>
      new Promise<void>((resolve) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        setTimeout(() => {
          inFlight--;
          resolve();
        }, 50);
      });
    let queued = 10_000;
    // Eight senders share the account's limiter, as the dispatcher's concurrent sends would.
    const sender = async () => {
      while (queued > 0) {
        queued--;
        await limiter.acquire();
        starts.push(Date.now());
        await graphApi();
      }
    };
    const done = Promise.all(Array.from({ length: 8 }, sender));
    await vi.runAllTimersAsync();
    await done;
    expect(starts).toHaveLength(10_000);
    expect(maxInWindow(starts)).toBe(80);
    const seconds = (starts.at(-1)! - starts[0]!) / 1000;
    const rate = (starts.length - 1) / seconds;
    // Timers fire on whole milliseconds: the average is 80 to within their rounding.
    expect(rate).toBeGreaterThan(79.9);
    expect(rate).toBeLessThan(80.01);
    // A 50 ms answer at 80 a second keeps four sends in flight (five at a tie): a one-at-a-time
    // sender would reach 20 a second.
    expect(mostInFlight).toBeGreaterThanOrEqual(4);
    expect(mostInFlight).toBeLessThanOrEqual(5);
  });
});
