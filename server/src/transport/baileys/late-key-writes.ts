import { AsyncResource } from 'node:async_hooks';
import type { SignalKeyStoreWithTransaction } from 'baileys';
import { SharedAsyncLocalStorage } from './shared-async-context.ts';

/** A transaction of rc14's key store: whether its work has returned, and the context outside it. */
type Window = { ended: boolean; outside: AsyncResource };

/** The transaction whose work is running (or ran) in the current async context. */
const windows = new SharedAsyncLocalStorage<Window>();

/**
 * Makes rc14's key store (`sock.authState.keys`, Utils/auth-utils.js addTransactionCapability)
 * write through what is written after a transaction's work returned. rc14 keeps the transaction
 * in an AsyncLocalStorage, and a promise started inside it keeps that context: a `set` from it
 * lands in the transaction's cache, already committed, and is lost. relayMessage issues the
 * privacy token that way (Socket/messages-send.js: issuePrivacyTokens, then `keys.set` of the
 * `tctoken` entry's senderTimestamp, not awaited by the transaction), so shouldSendNewTcToken
 * (Utils/tc-token-utils.js) never saw the issue and every one-to-one send issued the token again
 * instead of once per 7-day bucket. Such a late call runs in the context outside the transaction,
 * where rc14 writes (and reads) the store directly, as with no transaction at all. The object is
 * changed in place: rc14's signal repository holds the same one (Socket/socket.js).
 */
export function writeLateKeysThrough(keys: SignalKeyStoreWithTransaction): void {
  const { get, set, isInTransaction, transaction } = keys;
  const escaped = <R>(fn: () => R): R => {
    const window = windows.getStore();
    return window?.ended ? window.outside.runInAsyncScope(fn) : fn();
  };
  keys.get = (type, ids) => escaped(() => get(type, ids));
  keys.set = (data) => escaped(() => set(data));
  keys.isInTransaction = () => escaped(isInTransaction);
  keys.transaction = (work, key) =>
    escaped(() => {
      // A nested transaction is part of the one around it (rc14 reuses its context).
      if (isInTransaction()) return transaction(work, key);
      const window: Window = { ended: false, outside: new AsyncResource('keys-outside-transaction') };
      return transaction(
        () =>
          windows.run(window, async () => {
            try {
              return await work();
            } finally {
              window.ended = true;
            }
          }),
        key,
      );
    });
}
