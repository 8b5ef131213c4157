type BatchItem<I, O> = { item: I; resolve(value: O): void; reject(err: unknown): void };

/**
 * Group commit: calls made while a statement runs wait and go together in the next one. Each
 * caller gets its own result. `conflicts` keeps two calls that must not share a statement apart.
 * `inFlight` statements may run at once: with two, one gathers calls while the other commits,
 * and the database's second connection (and core) is used.
 */
export function batcher<I, O>(
  run: (items: I[]) => Promise<O[]>,
  conflicts: (a: I, b: I) => boolean,
  inFlight = 1,
) {
  let queue: Array<BatchItem<I, O>> = [];
  let running = 0;
  const flush = async () => {
    if (running >= inFlight || queue.length === 0) return;
    running += 1;
    const batch: Array<BatchItem<I, O>> = [];
    const later: Array<BatchItem<I, O>> = [];
    for (const q of queue) (batch.some((b) => conflicts(b.item, q.item)) ? later : batch).push(q);
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
