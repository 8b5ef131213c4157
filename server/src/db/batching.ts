type BatchItem<I, O> = { item: I; resolve(value: O): void; reject(err: unknown): void };

/**
 * Group commit: calls made while a statement runs wait and go together in the next one. Each
 * caller gets its own result. Two calls with the same `keyOf` never share a statement (a call
 * without a key shares with any); the check is one set lookup a call, however many accounts tick.
 * `inFlight` statements may run at once: with two, one gathers calls while the other commits,
 * and the database's second connection (and core) is used.
 */
export function batcher<I, O>(
  run: (items: I[]) => Promise<O[]>,
  keyOf: (item: I) => string | undefined,
  inFlight = 1,
) {
  let queue: Array<BatchItem<I, O>> = [];
  let running = 0;
  const flush = async () => {
    if (running >= inFlight || queue.length === 0) return;
    running += 1;
    const batch: Array<BatchItem<I, O>> = [];
    const later: Array<BatchItem<I, O>> = [];
    const keys = new Set<string>();
    for (const q of queue) {
      const key = keyOf(q.item);
      if (key !== undefined && keys.has(key)) later.push(q);
      else {
        if (key !== undefined) keys.add(key);
        batch.push(q);
      }
    }
    queue = later;
    try {
      const out = await run(batch.map((b) => b.item));
      for (const [i, b] of batch.entries()) b.resolve(out[i]!);
    } catch (err) {
      for (const b of batch) b.reject(err);
    } finally {
      running -= 1;
      if (queue.length > 0) setImmediate(flush);
    }
  };
  return (item: I) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (running < inFlight) setImmediate(flush);
    });
}
