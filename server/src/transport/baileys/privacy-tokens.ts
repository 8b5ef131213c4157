import { chatIdOfPhone } from '@wa/contract';
import {
  jidDecode,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
  type SignalKeyStoreWithTransaction,
} from 'baileys';
import { readTcTokenIndex, TC_TOKEN_INDEX_KEY } from 'baileys/lib/Utils/tc-token-utils.js';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { PrivacyTokenStore } from '../privacy-tokens.ts';

/** rc14's token lifetime (Utils/tc-token-utils.js TC_TOKEN_BUCKET_DURATION, TC_TOKEN_NUM_BUCKETS). */
const BUCKET_S = 604_800;
const BUCKETS = 4;

/**
 * Until when rc14 attaches a token given at `timestamp` (seconds): isTcTokenExpired calls it
 * expired once it falls before the first of the last four 7-day buckets, that is from the start
 * of the fourth bucket after its own. Null for an empty or timeless token (rc14 sends none).
 */
export function tokenExpiry(entry: SignalDataTypeMap['tctoken'] | null | undefined): Date | null {
  const ts = Number(entry?.timestamp);
  if (!entry?.token?.length || !Number.isFinite(ts) || ts <= 0) return null;
  const end = new Date((Math.floor(ts / BUCKET_S) + BUCKETS) * BUCKET_S * 1000);
  return end.getTime() > Date.now() ? end : null;
}

/**
 * The privacy tokens contacts gave the account, as rc14 stores them (`tctoken` keys under the
 * contact's LID, or its number when no LID is known: Utils/tc-token-utils.js resolveTcTokenJid,
 * Socket/messages-recv.js handlePrivacyTokenNotification), reported per phone-number chat. rc14
 * attaches a stored token to every one-to-one message itself (Socket/messages-send.js
 * relayMessage); what this adds is the list of chats that carry one, which the engine reads to
 * hold back only the others while the account may not start new chats (463). A token stored
 * under a LID whose number is not known yet is reported once rc14 stores the mapping
 * (Signal/lid-mapping.js storeLIDPNMappings writes `<lid>_reverse` → number).
 */
export class PrivacyTokens {
  /** Tokens under a LID user whose number is not known yet: their end (null: cleared). */
  private readonly unmapped = new LRUCache<string, { until: Date | null }>({ max: 5000 });
  /** Notes one after the other, so that a token cleared after it was stored ends cleared. */
  private noting: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: PrivacyTokenStore | undefined,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Keys rc14 wrote (through `keys`, which reads the LID mappings). */
  written(keys: SignalKeyStore, data: SignalDataSet): void {
    if (!this.store) return;
    const tokens = Object.entries(data.tctoken ?? {}).filter(([jid]) => jid !== TC_TOKEN_INDEX_KEY);
    const mappings = Object.entries(data['lid-mapping'] ?? {});
    if (tokens.length === 0 && mappings.length === 0) return;
    this.noting = this.noting
      .then(async () => {
        for (const [jid, entry] of tokens) await this.note(keys, jid, tokenExpiry(entry));
        for (const [key, pn] of mappings) {
          const lid = key.endsWith('_reverse') ? key.slice(0, -'_reverse'.length) : null;
          const held = lid && typeof pn === 'string' ? this.unmapped.get(lid) : undefined;
          if (!held || !lid) continue;
          this.unmapped.delete(lid);
          await this.store?.note(chatIdOfPhone(pn as string), held.until);
        }
      })
      .catch((err) => this.log.warn({ err }, 'could not note a privacy token'));
  }

  /** Every token stored (rc14's index of them), once a socket opens: those stored before a restart too. */
  async seed(keys: SignalKeyStore): Promise<void> {
    if (!this.store) return;
    // readTcTokenIndex only reads (keys.get); its type asks for rc14's transaction store.
    const jids = await readTcTokenIndex(keys as SignalKeyStoreWithTransaction);
    if (jids.length === 0) return;
    const entries = await keys.get('tctoken', jids);
    for (const jid of jids) await this.note(keys, jid, tokenExpiry(entries[jid]));
  }

  private async note(keys: SignalKeyStore, storageJid: string, expiresAt: Date | null): Promise<void> {
    const decoded = jidDecode(storageJid);
    if (!decoded?.user) return;
    if (decoded.server === 's.whatsapp.net') {
      await this.store?.note(chatIdOfPhone(decoded.user), expiresAt);
      return;
    }
    if (decoded.server !== 'lid') return;
    const reverse = `${decoded.user}_reverse`;
    const pn = (await keys.get('lid-mapping', [reverse]))[reverse];
    if (typeof pn === 'string' && pn) await this.store?.note(chatIdOfPhone(pn), expiresAt);
    else this.unmapped.set(decoded.user, { until: expiresAt });
  }
}
