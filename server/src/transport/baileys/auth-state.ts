import {
  type AuthenticationCreds,
  type AuthenticationState,
  BufferJSON,
  initAuthCreds,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
} from 'baileys';
import type { AuthEntry, AuthStore } from '../auth-store.ts';

const CREDS_KEY = 'creds';
const keyName = (type: string, id: string) => `${type}-${id}`;

export type DbAuthState = {
  state: AuthenticationState;
  /** Stores the creds object whole (call on every `creds.update`). */
  saveCreds(): Promise<void>;
  /** Whether stored creds existed (a linked or half-linked account). */
  existed: boolean;
};

/**
 * Baileys' auth state in `wa_auth_state`: values as BufferJSON text, `creds` whole, every
 * `keys.set` one transaction of upserts and deletes (see AuthStore.write).
 */
export async function loadDbAuthState(store: AuthStore): Promise<DbAuthState> {
  const stored = await store.read(CREDS_KEY);
  const creds: AuthenticationCreds = stored ? JSON.parse(stored, BufferJSON.reviver) : initAuthCreds();

  const keys: SignalKeyStore = {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const rows = await store.readMany(ids.map((id) => keyName(type, id)));
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const text = rows.get(keyName(type, id));
        if (text === undefined) continue;
        let value = JSON.parse(text, BufferJSON.reviver);
        // Stored as plain JSON; Baileys expects the proto class back.
        if (type === 'app-state-sync-key') value = proto.Message.AppStateSyncKeyData.fromObject(value);
        out[id] = value;
      }
      return out;
    },
    async set(data: SignalDataSet) {
      const entries: AuthEntry[] = [];
      for (const [type, byId] of Object.entries(data)) {
        for (const [id, value] of Object.entries(byId ?? {})) {
          entries.push({
            key: keyName(type, id),
            value: value === null || value === undefined ? null : JSON.stringify(value, BufferJSON.replacer),
          });
        }
      }
      await store.write(entries);
    },
  };

  return {
    state: { creds, keys },
    saveCreds: () => store.write([{ key: CREDS_KEY, value: JSON.stringify(creds, BufferJSON.replacer) }]),
    existed: stored !== null,
  };
}
