import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { batcher } from '../../src/db/batching.ts';

/** A statement runner that records what each call saw and how many ran at once. */
function recorder(ms = 20) {
  const batches: string[][] = [];
  let running = 0;
  let most = 0;
  const run = async (items: string[]) => {
    running += 1;
    most = Math.max(most, running);
    batches.push(items);
    await sleep(ms);
    running -= 1;
    if (items.includes('bad')) throw new Error('the statement failed');
    return items.map((i) => i.toUpperCase());
  };
  return { run, batches, most: () => most };
}

describe('group commit (batcher)', () => {
  it('gathers the calls made while a statement runs into the next one; each caller gets its own result', async () => {
    const r = recorder();
    const call = batcher(r.run, () => undefined);
    const first = call('a');
    await sleep(5);
    const rest = ['b', 'c', 'd'].map((x) => call(x));
    expect(await Promise.all([first, ...rest])).toEqual(['A', 'B', 'C', 'D']);
    expect(r.batches).toEqual([['a'], ['b', 'c', 'd']]);
    expect(r.most()).toBe(1);
  });

  it('runs up to inFlight statements at once, and never more', async () => {
    const r = recorder();
    const call = batcher(r.run, () => undefined, 2);
    const calls: Array<Promise<string>> = [];
    for (let i = 0; i < 12; i++) {
      calls.push(call(`x${i}`));
      await sleep(4);
    }
    expect((await Promise.all(calls)).length).toBe(12);
    expect(r.most()).toBe(2);
    expect(r.batches.flat().sort()).toEqual(Array.from({ length: 12 }, (_, i) => `x${i}`).sort());
  });

  it('keeps calls with the same key in separate statements; calls without a key go with any', async () => {
    const r = recorder();
    const call = batcher(r.run, (item) => (item.startsWith('-') ? undefined : item[0]));
    await Promise.all(['s1', 's2', 't1', '-a', 's3', '-b', 't2'].map((x) => call(x)));
    expect(r.batches).toEqual([['s1', 't1', '-a', '-b'], ['s2', 't2'], ['s3']]);
  });

  it('rejects the callers of a failed statement only', async () => {
    const r = recorder();
    const call = batcher(r.run, () => undefined);
    const ok = call('ok');
    await sleep(5);
    const bad = call('bad');
    const alsoBad = call('other');
    await expect(ok).resolves.toBe('OK');
    await expect(bad).rejects.toThrow('the statement failed');
    await expect(alsoBad).rejects.toThrow('the statement failed');
    await expect(call('later')).resolves.toBe('LATER');
  });
});
