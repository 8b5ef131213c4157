/** Polls `fn` every 200 ms until it answers something, for at most `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`demo seed: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
