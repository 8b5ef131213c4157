import {
  addTransactionCapability,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
} from 'baileys';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { writeLateKeysThrough } from '../../src/transport/baileys/late-key-writes.ts';
import { shareAsyncLocalStorage } from '../../src/transport/baileys/shared-async-context.ts';

// rc14's transactions on the storage the product gives them (lifecycle.ts, before its first
// socket): Node's own would stay enabled for the rest of this worker's files.
shareAsyncLocalStorage();

const entry = (text: string) => ({ token: Buffer.from(text), timestamp: '1' });

/** rc14's key store with transactions (Utils/auth-utils.js) over keys in memory. */
function rc14Keys() {
  const rows = new Map<string, unknown>();
  const store: SignalKeyStore = {
    get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids)
        if (rows.has(`${type}/${id}`)) out[id] = rows.get(`${type}/${id}`) as SignalDataTypeMap[T];
      return out;
    },
    set: async (data: SignalDataSet) => {
      for (const [type, byId] of Object.entries(data))
        for (const [id, value] of Object.entries(byId ?? {}))
          value == null ? rows.delete(`${type}/${id}`) : rows.set(`${type}/${id}`, value);
    },
  };
  const keys = addTransactionCapability(store, pino({ level: 'silent' }), {
    maxCommitRetries: 1,
    delayBetweenTriesMs: 0,
  });
  return { rows, store, keys };
}

describe('keys written after rc14’s transaction returned', () => {
  it('a promise started in a transaction writes, reads and opens transactions on the store once it returned', async () => {
    const { rows, store, keys } = rc14Keys();
    writeLateKeysThrough(keys);
    await store.set({ tctoken: { read: entry('before') } });
    let late: Promise<unknown> = Promise.resolve();
    await keys.transaction(async () => {
      expect((await keys.get('tctoken', ['read'])).read).toEqual(entry('before'));
      await keys.set({ tctoken: { inside: entry('inside') } });
      // As relayMessage's privacy token issue: not awaited by the transaction.
      late = (async () => {
        await new Promise((r) => setTimeout(r, 10));
        await keys.set({ tctoken: { late: entry('late') } });
        await store.set({ tctoken: { read: entry('changed') } });
        const read = (await keys.get('tctoken', ['read'])).read;
        await keys.transaction(async () => keys.set({ tctoken: { nested: entry('nested') } }), 'me');
        return { read, inTransaction: keys.isInTransaction() };
      })();
    }, 'me');
    expect(await late).toEqual({ read: entry('changed'), inTransaction: false });
    expect([...rows.keys()].sort()).toEqual([
      'tctoken/inside',
      'tctoken/late',
      'tctoken/nested',
      'tctoken/read',
    ]);
  });

  it('without it, rc14 keeps the late write in the committed transaction and loses it', async () => {
    const { rows, keys } = rc14Keys();
    let late: Promise<unknown> = Promise.resolve();
    await keys.transaction(async () => {
      late = (async () => {
        await new Promise((r) => setTimeout(r, 10));
        await keys.set({ tctoken: { late: entry('late') } });
      })();
    }, 'me');
    await late;
    expect([...rows.keys()]).toEqual([]);
  });
});
