import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` every `everyMs` until it returns a truthy value, and returns that value; fails after
 * `timeoutMs` naming `what` (and the probe's last error: a probe may throw, an `expect` for
 * instance, until its condition holds). The default is generous: a wait only fails a test that is
 * wrong, and the server suite runs its files side by side on 2 cores, where a write once took
 * over 10 s. The one way a test here waits for something to happen; none sleeps instead.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 30_000,
  everyMs = 25,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await sleep(everyMs);
  }
}
