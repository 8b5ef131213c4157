import { type Address, chatIdOfPhone, jidUser } from '@wa/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { LidTextStore } from '../number-lookups.ts';
import type { IncomingText } from '../types.ts';
import type { BaileysSocket } from './socket.ts';

/**
 * Texts from contacts known only by their LID. rc14 reports a chat addressed by
 * LID with `remoteJidAlt` the number when the stanza carried it (Utils/decode-wa-message.js,
 * sender_pn), or its LID mapping store knows it (Signal/lid-mapping.js getPNForLID); otherwise no
 * query turns a LID into a number (rc14's USync `lid` protocol answers the other way: number →
 * LID, Socket/socket.js pnFromLIDUSync). Such a text (a STOP) is held in the store until the LID
 * resolves: when rc14 learns the mapping (`lid-mapping.update`), or before a send to a number whose
 * LID it is; then it is reported as the number's, and that send does not go when it opted out.
 */
export class HeldLidTexts {
  /** Whether the store holds any text (asked at most every 30 s; a hold sets it at once). */
  private held: { any: boolean; at: number } | null = null;

  constructor(
    private readonly deps: {
      store: LidTextStore | undefined;
      isOptOut: (text: string) => boolean;
      report: (text: IncomingText) => void;
      /** The LID and the number are one person's (reported before the texts the LID held). */
      join: (addresses: Address[]) => void;
      log: FastifyBaseLogger;
    },
  ) {}

  async hold(lidJid: string, messageId: string, text: string): Promise<void> {
    const { store, log } = this.deps;
    if (!store) {
      log.info({ chatId: lidJid }, 'a message from a LID with no known number');
      return;
    }
    await store.hold({ lid: jidUser(lidJid), messageId, text });
    this.held = { any: true, at: Date.now() };
  }

  private async anyHeld(): Promise<boolean> {
    const { store } = this.deps;
    if (!store) return false;
    if (!this.held || Date.now() - this.held.at > 30_000)
      this.held = { any: await store.any(), at: Date.now() };
    return this.held.any;
  }

  /**
   * The numbers of a lookup batch (their JIDs): when texts are held, their LIDs in one USync query
   * (rc14's getLIDsForPNs asks the ones its store lacks), so that each send finds its LID stored.
   */
  async resolveBatch(sock: BaileysSocket, pnJids: string[]): Promise<void> {
    if (pnJids.length === 0 || !(await this.anyHeld())) return;
    await sock.signalRepository.lidMapping.getLIDsForPNs(pnJids);
  }

  /** rc14 learnt a LID's number (Socket/chats.js `lid-mapping.update`): its held texts are the number's. */
  async mapped(lid: string, pn: string): Promise<void> {
    if (!(await this.anyHeld())) return;
    await this.release([jidUser(lid)], pn);
  }

  /**
   * Before a send to `pnJid`: its LID's held texts are reported; true when one opted it out. A
   * failed look-up lets the send go (as before this check), logged.
   */
  async optedOut(sock: BaileysSocket, pnJid: string): Promise<boolean> {
    try {
      if (!(await this.anyHeld())) return false;
      const lid = await sock.signalRepository.lidMapping.getLIDForPN(pnJid);
      return lid ? await this.release([jidUser(lid)], pnJid) : false;
    } catch (err) {
      this.deps.log.warn({ err }, 'held LID texts could not be checked before a send');
      return false;
    }
  }

  private async release(lids: string[], pnJid: string): Promise<boolean> {
    const texts = (await this.deps.store?.take(lids)) ?? [];
    const phone = jidUser(pnJid);
    const from = chatIdOfPhone(phone);
    for (const lid of new Set(texts.map((t) => t.lid)))
      this.deps.join([
        { kind: 'lid', value: lid },
        { kind: 'phone', value: phone },
      ]);
    for (const t of texts) this.deps.report({ from, text: t.text, messageId: t.messageId });
    return texts.some((t) => this.deps.isOptOut(t.text));
  }
}
