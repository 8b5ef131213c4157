import type { SignalDataSet, SignalDataTypeMap, SignalKeyStore } from 'baileys';

/** A Baileys key store held in memory (a phone's keys live as long as the emulator). */
export function memoryKeyStore(): SignalKeyStore {
  const data = new Map<string, unknown>();
  return {
    get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const v = data.get(`${type}:${id}`);
        if (v !== undefined) out[id] = v as SignalDataTypeMap[T];
      }
      return out;
    },
    set: async (set: SignalDataSet) => {
      for (const [type, entries] of Object.entries(set))
        for (const [id, v] of Object.entries(entries ?? {})) {
          if (v === null) data.delete(`${type}:${id}`);
          else data.set(`${type}:${id}`, v);
        }
    },
  };
}
