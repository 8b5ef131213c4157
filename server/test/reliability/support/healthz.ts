import type { ServerProcess } from './server-process.ts';

/** The reliability suite's goal for `/healthz` while a heavy request runs (a figure, not an assertion). */
export const HEALTHZ_GOAL_MS = 200;

/**
 * The bound a test asserts: three times the goal. A request that holds the event loop as
 * the 200,000-id estimate (2.4 s) and the 49 MB wide CSV (0.7-1.1 s) did fails it; the
 * 230-290 ms measured while other suites ran on the machine does not.
 */
export const HEALTHZ_STALL_MS = 600;

export type HealthzWatch = {
  /** The slowest answer (ms) and when it was asked, in ms after the watch began. */
  slowest: number;
  slowestAt: number;
  /** Answers slower than 100 ms. */
  slow: number;
};

/**
 * Polls the server's `/healthz`, one request after another, until `done()` says the work under
 * test has ended: how long the server kept a request waiting meanwhile.
 */
export async function watchHealthz(server: ServerProcess, done: () => boolean): Promise<HealthzWatch> {
  const t0 = performance.now();
  const watch: HealthzWatch = { slowest: 0, slowestAt: 0, slow: 0 };
  while (!done()) {
    const h0 = performance.now();
    await fetch(`${server.url}/healthz`).then((r) => r.text());
    const took = performance.now() - h0;
    if (took > 100) watch.slow++;
    if (took > watch.slowest) {
      watch.slowest = took;
      watch.slowestAt = h0 - t0;
    }
  }
  return { slowest: Math.round(watch.slowest), slowestAt: Math.round(watch.slowestAt), slow: watch.slow };
}
