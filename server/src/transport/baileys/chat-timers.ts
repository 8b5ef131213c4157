import { bareJid, isLidJid, isPhoneJid } from '@wa/contract';
import { getContentType, normalizeMessageContent, proto, type WAMessage } from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { AuthStore } from '../auth-store.ts';

/** Where a one-to-one chat's timer is kept among the account's keys (wa_auth_state), beside rc14's own. */
const keyOf = (jid: string) => `chat-timer-${jid}`;

/**
 * The disappearing-messages timer (seconds; 0: off) that a one-to-one message shows for its chat;
 * null when the message says nothing of it. A chat setting (protocolMessage EPHEMERAL_SETTING,
 * which rc14 applies to the chat as `ephemeralExpiration`, Utils/process-message.js) is the timer
 * itself. A message whose kind carries a contextInfo carries the chat's timer there as
 * `expiration`, as rc14 writes it into every message it sends with `ephemeralExpiration`
 * (Utils/messages.js generateWAMessageFromContent): without it, the chat's messages do not
 * disappear. A plain `conversation` text has no contextInfo: a client that writes one keeps no
 * timer. Others (reactions, other protocol messages) say nothing.
 */
export function timerOf(message: proto.IMessage | null | undefined): number | null {
  const content = normalizeMessageContent(message);
  if (!content) return null;
  const protocol = content.protocolMessage;
  if (protocol) {
    return protocol.type === proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING
      ? protocol.ephemeralExpiration || 0
      : null;
  }
  if (typeof content.conversation === 'string' && content.conversation !== '') return 0;
  const type = getContentType(content);
  const inner = type ? (content[type] as { contextInfo?: proto.IContextInfo | null } | null) : null;
  if (!inner || typeof inner !== 'object') return null;
  // Decoded protobuf objects have every field of their kind (absent ones null on the prototype).
  if (!('contextInfo' in inner)) return null;
  return inner.contextInfo?.expiration || 0;
}

/**
 * The disappearing-messages timers of the account's one-to-one chats, so that a message to such a
 * chat disappears with the others (rc14 sendMessage's `ephemeralExpiration`), as groups' do with
 * their metadata. Learnt from what the chat shows: the contact's latest message, a change of the
 * chat's setting from either side, the chats of the history bootstrap. Kept among the account's
 * keys under the chat's phone-number JID and its LID (each found from the other through the LID
 * mappings rc14 stored, when it has them), so that a restart or another node knows them and a
 * logout wipes them with the keys. Cached here: one node drives an account at a time.
 */
export class ChatTimers {
  /** By JID: the timer kept (0: none kept). */
  private readonly known = new LRUCache<string, { seconds: number }>({ max: 5000 });
  /** Writes one after the other, so that the latest timer of a chat is the one kept. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      auth: AuthStore;
      /** The other JID of a chat from the LID mappings rc14 stored (stored-mappings.ts storedPn, storedLid). */
      pnOf: (lidJid: string) => Promise<string | null>;
      lidOf: (pnJid: string) => Promise<string | null>;
      log: FastifyBaseLogger;
    },
  ) {}

  /** A message in a one-to-one chat: its timer (timerOf) becomes the chat's. */
  fromMessage(m: WAMessage): void {
    // Our own sends come back as our messages (rc14 emitOwnEvents): they show what we chose, not
    // the chat; a change of the setting from the account's phone is the chat's.
    if (m.key.fromMe && !normalizeMessageContent(m.message)?.protocolMessage) return;
    const seconds = timerOf(m.message);
    if (seconds === null) return;
    const key = m.key as { remoteJid?: string | null; remoteJidAlt?: string | null };
    this.keep([key.remoteJid, key.remoteJidAlt], seconds);
  }

  /** Chats of the history bootstrap with their timers (history.ts). */
  fromHistory(chats: { jids: string[]; seconds: number }[]): void {
    for (const c of chats) this.keep(c.jids, c.seconds);
  }

  /** The timer of the chat at `jids` (its number's, its LID's), 0 when none is kept. */
  async of(jids: string[]): Promise<number> {
    for (const j of new Set(jids.map((x) => bareJid(x) ?? x))) {
      const seconds = await this.read(j);
      if (seconds > 0) return seconds;
    }
    return 0;
  }

  private async read(jid: string): Promise<number> {
    const cached = this.known.get(jid);
    if (cached) return cached.seconds;
    const seconds = Number(await this.deps.auth.read(keyOf(jid))) || 0;
    this.known.set(jid, { seconds });
    return seconds;
  }

  /** Keeps `seconds` under the chat's number and LID (those among `jids`, and the other one rc14 knows). */
  private keep(jids: Array<string | null | undefined>, seconds: number): void {
    const bare = jids.map((j) => bareJid(j)).filter((j): j is string => !!j);
    const given = { pn: bare.find(isPhoneJid), lid: bare.find(isLidJid) };
    if (!given.pn && !given.lid) return;
    this.writing = this.writing
      .then(async () => {
        const pn = given.pn ?? (await this.deps.pnOf(given.lid!));
        const lid = given.lid ?? (await this.deps.lidOf(given.pn!));
        const changed: string[] = [];
        for (const jid of [pn, lid]) if (jid && (await this.read(jid)) !== seconds) changed.push(jid);
        if (changed.length === 0) return;
        for (const jid of changed) this.known.set(jid, { seconds });
        await this.deps.auth.write(
          changed.map((jid) => ({ key: keyOf(jid), value: seconds > 0 ? String(seconds) : null })),
        );
      })
      .catch((err) => this.deps.log.warn({ err }, 'could not keep a chat timer'));
  }
}
