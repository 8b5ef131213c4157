import asyncHooks from 'node:async_hooks';
import { syncBuiltinESMExports } from 'node:module';

/** Node's own class, as it was before `shareAsyncLocalStorage` replaced it. */
export const NativeAsyncLocalStorage = asyncHooks.AsyncLocalStorage;
const Native = NativeAsyncLocalStorage;
type Stores = ReadonlyMap<SharedAsyncLocalStorage<unknown>, unknown>;

/**
 * An AsyncLocalStorage whose value lives, with every other instance's, in one native storage.
 *
 * rc14 gives each socket's key store its own AsyncLocalStorage (Socket/socket.js wraps the keys
 * in Utils/auth-utils.js addTransactionCapability), enabled by the first message it encrypts or
 * decrypts. On Node 20, each enabled storage is copied onto every promise and timer the process
 * makes afterwards (node:async_hooks `_propagate`), so each await of the whole server costs in
 * proportion to the linked accounts it holds: about 1.4 µs with one, 110 µs with 100 and 1.2 ms
 * with 1,000 (docs/performance.md, "Many linked accounts in one process"). Here one native
 * storage carries a map of the instances' values, so a promise carries one, however many
 * accounts there are. Same API (`run`, `exit`, `enterWith`, `getStore`, `disable`; the static
 * `bind` and `snapshot` are Node's, which capture the one storage and so every instance).
 */
export class SharedAsyncLocalStorage<T> {
  static readonly bind = Native.bind;
  static readonly snapshot = Native.snapshot;
  private static readonly native = new Native<Stores>();
  private enabled = true;

  getStore(): T | undefined {
    if (!this.enabled) return undefined;
    return SharedAsyncLocalStorage.native.getStore()?.get(this) as T | undefined;
  }

  run<R, A extends unknown[]>(store: T, callback: (...args: A) => R, ...args: A): R {
    this.enabled = true;
    return SharedAsyncLocalStorage.native.run(this.with(store), callback, ...args);
  }

  exit<R, A extends unknown[]>(callback: (...args: A) => R, ...args: A): R {
    return SharedAsyncLocalStorage.native.run(this.without(), callback, ...args);
  }

  enterWith(store: T): void {
    this.enabled = true;
    SharedAsyncLocalStorage.native.enterWith(this.with(store));
  }

  /** As Node's: every later `getStore` gives undefined, until `run` or `enterWith` again. */
  disable(): void {
    this.enabled = false;
  }

  private with(store: T): Stores {
    const stores = new Map(SharedAsyncLocalStorage.native.getStore());
    stores.set(this as SharedAsyncLocalStorage<unknown>, store);
    return stores;
  }

  private without(): Stores {
    const stores = new Map(SharedAsyncLocalStorage.native.getStore());
    stores.delete(this as SharedAsyncLocalStorage<unknown>);
    return stores;
  }
}

let shared = false;

/**
 * Makes `AsyncLocalStorage` of `node:async_hooks` the shared one for the rest of the process
 * (ES modules' imports of it included, through `syncBuiltinESMExports`). Called before the first
 * Baileys socket is made; instances made earlier keep working as they were.
 */
export function shareAsyncLocalStorage(): void {
  if (shared) return;
  shared = true;
  (asyncHooks as { AsyncLocalStorage: unknown }).AsyncLocalStorage = SharedAsyncLocalStorage;
  syncBuiltinESMExports();
}
