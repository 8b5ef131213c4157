/**
 * A Cloud API number's pace. Meta's Throughput page
 * (https://developers.facebook.com/docs/whatsapp/throughput) gives each business number 80
 * messages a second by default (1,000 after an automatic upgrade; 20 for a number also used in the
 * WhatsApp Business app) and answers 130429 above it. A linked phone sends one at a time; a Cloud
 * number sends many at once, so the limit is on when sends *start*, not on how many are in flight.
 *
 * A token bucket in its GCRA form (one "theoretical arrival time" instead of a token count, so no
 * timer refills it): sends are spaced 1000 / perSecond ms apart, and up to `burst` may start
 * together after a quiet spell. A bucket alone allows burst + perSecond starts in a second, so a
 * ring of the last `perSecond` start times also holds each start to at least 1000 ms after the
 * start perSecond places before it: never more than `perSecond` starts in any 1 s window
 * (`[t, t + 1000)`), whatever the burst (to within a float rounding of a nanosecond).
 *
 * Pure: `reserve(now)` answers when a send may start and books it; `acquire()` waits for it.
 * One limiter per account and process (the account's owner node sends for it).
 */
export type ThroughputLimiterOptions = {
  /** Messages a second Meta allows the number (80 by default). */
  perSecond?: number;
  /** How many may start at once after a quiet spell (1: evenly spaced). */
  burst?: number;
  /** The clock, in ms (default performance.now()). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
};

export const DEFAULT_MESSAGES_PER_SECOND = 80;

export type ThroughputLimiter = ReturnType<typeof createThroughputLimiter>;

export function createThroughputLimiter(options: ThroughputLimiterOptions = {}) {
  const perSecond = options.perSecond ?? DEFAULT_MESSAGES_PER_SECOND;
  const burst = options.burst ?? 1;
  if (!Number.isInteger(perSecond) || perSecond < 1) throw new RangeError('perSecond: a whole number from 1');
  if (!Number.isInteger(burst) || burst < 1 || burst > perSecond) {
    throw new RangeError(`burst: a whole number from 1 to perSecond (${perSecond})`);
  }
  // A monotonic clock with sub-millisecond steps: Date.now can jump and rounds to whole ms.
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const interval = 1000 / perSecond;
  const tolerance = (burst - 1) * interval;
  /** The last `perSecond` start times, oldest at `next`. */
  const ring = new Array<number>(perSecond).fill(Number.NEGATIVE_INFINITY);
  let next = 0;
  let tat = Number.NEGATIVE_INFINITY;
  let notBefore = Number.NEGATIVE_INFINITY;

  /** Books the bucket: the planned start of a send arriving at `at`. */
  function plan(at: number): number {
    const start = Math.max(at, notBefore, tat - tolerance, ring[next]! + 1000);
    tat = Math.max(tat, start) + interval;
    return start;
  }

  /** Records a start in the ring (starts are recorded in time order). */
  function started(at: number) {
    ring[next] = at;
    next = (next + 1) % perSecond;
  }

  function reserve(at: number = now()): number {
    const start = plan(at);
    started(start);
    return start;
  }

  return {
    perSecond,
    /** Books the next start: the time (ms, the clock of `now`) at which this send may begin. */
    reserve,
    /**
     * Waits until this send may begin. Timers wake late and in whole milliseconds, so the ring
     * records the time the send really starts, checked again on waking: the bound holds for
     * actual starts, while the bucket keeps the planned pace (a late wake does not slow the next).
     * Answers the start time it recorded; what runs after it (the caller's own work, the network)
     * adds its own jitter, which no limiter upstream of it can remove.
     */
    async acquire(): Promise<number> {
      const planned = plan(now());
      for (;;) {
        const at = now();
        const wait = Math.max(planned, notBefore, ring[next]! + 1000) - at;
        if (wait <= 0) {
          started(at);
          return at;
        }
        await sleep(Math.ceil(wait));
      }
    },
    /** Nothing starts before `time` (Meta answered 130429: back off). Already booked starts keep their time. */
    pauseUntil(time: number) {
      notBefore = Math.max(notBefore, time);
    },
  };
}

/**
 * The most starts in any window `[t, t + windowMs)` of a sorted list of start times (for tests and
 * benches). Two starts exactly `windowMs` apart may differ by a rounding error of the float
 * subtraction (`(a + 1000) - a` is not always 1000): a nanosecond counts as apart.
 */
export function maxInWindow(sortedStarts: number[], windowMs = 1000): number {
  const apart = windowMs - 1e-6;
  let most = 0;
  let first = 0;
  for (let last = 0; last < sortedStarts.length; last++) {
    while (sortedStarts[last]! - sortedStarts[first]! >= apart) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
