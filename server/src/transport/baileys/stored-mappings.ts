import { chatIdOfLid, chatIdOfPhone } from '@wa/contract';
import { jidDecode, type SignalKeyStore } from 'baileys';

/**
 * The number↔LID mappings rc14 stored in the account's keys (Signal/lid-mapping.js
 * storeLIDPNMappings), read without asking WhatsApp. `keys` is the lifecycle's key store of the
 * moment (lifecycle.ts): null before the first socket and after a wipe.
 */
export class StoredMappings {
  constructor(private readonly keys: () => SignalKeyStore | null) {}

  /**
   * The LID rc14 has stored for a phone-number JID (Signal/lid-mapping.js storeLIDPNMappings:
   * `lid-mapping` keys, pn user → LID user), without asking WhatsApp; null when none is known.
   */
  async storedLid(pnJid: string): Promise<string | null> {
    return (await this.storedLids([pnJid])).get(pnJid) ?? null;
  }

  /** storedLid for many phone-number JIDs in one read: those with a stored LID, to it. */
  async storedLids(pnJids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const users = new Map(pnJids.map((j) => [j, jidDecode(j)?.user ?? ''] as const));
    const keys = this.keys();
    if (!keys) return out;
    const stored = await keys.get('lid-mapping', [...new Set(users.values())].filter(Boolean));
    for (const [jid, user] of users) {
      const lid = user ? stored[user] : undefined;
      if (typeof lid === 'string' && lid) out.set(jid, chatIdOfLid(lid));
    }
    return out;
  }

  /** The phone-number JID rc14 stored for a LID (Signal/lid-mapping.js `<lid>_reverse`), null when none. */
  async storedPn(lidJid: string): Promise<string | null> {
    const user = jidDecode(lidJid)?.user;
    const keys = this.keys();
    if (!user || !keys) return null;
    const reverse = `${user}_reverse`;
    const pn = (await keys.get('lid-mapping', [reverse]))[reverse];
    return typeof pn === 'string' && pn ? chatIdOfPhone(pn) : null;
  }
}
