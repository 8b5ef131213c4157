import { describe, expect, it } from 'vitest';
import {
  NativeAsyncLocalStorage,
  SharedAsyncLocalStorage,
  shareAsyncLocalStorage,
} from '../../src/transport/baileys/shared-async-context.ts';

/** The symbols node:async_hooks left on a promise made inside `run`: one per enabled storage. */
function storagesOnAPromise(make: () => { run: (s: object, f: () => void) => void }): number {
  const storages = Array.from({ length: 200 }, make);
  for (const s of storages) s.run({}, () => {});
  let made: Promise<unknown> | undefined;
  storages[0]!.run({}, () => {
    made = Promise.resolve().then(() => {});
  });
  return Object.getOwnPropertySymbols(made!).length;
}

describe('one AsyncLocalStorage for every linked account', () => {
  it('a promise carries one storage however many key stores ran (Node’s own carry one each)', () => {
    // Shared first: Node's storages stay enabled for the rest of the process once they ran. Node's
    // class is the one the module kept: a Baileys socket made earlier in this process (the suite
    // runs files one after another in a worker) shared what node:async_hooks hands out.
    // A promise also carries node's two async ids once a hook is on.
    const shared = storagesOnAPromise(() => new SharedAsyncLocalStorage());
    expect(shared).toBeLessThanOrEqual(3);
    expect(storagesOnAPromise(() => new NativeAsyncLocalStorage())).toBeGreaterThanOrEqual(shared + 199);
  });

  it('each instance keeps its own value through awaits, nested runs, exit, enterWith and disable', async () => {
    const a = new SharedAsyncLocalStorage<string>();
    const b = new SharedAsyncLocalStorage<string>();
    await a.run('a1', async () => {
      await Promise.resolve();
      expect([a.getStore(), b.getStore()]).toEqual(['a1', undefined]);
      await b.run('b1', async () => {
        await new Promise((r) => setTimeout(r, 1));
        expect([a.getStore(), b.getStore()]).toEqual(['a1', 'b1']);
        a.exit(() => expect([a.getStore(), b.getStore()]).toEqual([undefined, 'b1']));
        await a.run('a2', async () => expect(a.getStore()).toBe('a2'));
        expect(a.getStore()).toBe('a1');
      });
      expect(b.getStore()).toBeUndefined();
    });
    expect(a.getStore()).toBeUndefined();
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        b.enterWith('entered');
        expect(b.getStore()).toBe('entered');
        b.disable();
        expect(b.getStore()).toBeUndefined();
        resolve();
      }, 0),
    );
  });

  it('once shared, what node:async_hooks hands out (as rc14 imports it) is the shared one', async () => {
    shareAsyncLocalStorage();
    const { AsyncLocalStorage: Imported } = await import('node:async_hooks');
    expect(new Imported()).toBeInstanceOf(SharedAsyncLocalStorage);
  });
});
