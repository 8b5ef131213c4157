import { FAILURE_TEXTS, isChannelJid, isGroupJid, isLidJid, isPhoneJid, jidUser } from '@wa/contract';
import { BufferJSON, generateMessageIDV2, generateWAMessageFromContent, type WAMessage } from 'baileys';
import { LRUCache } from 'lru-cache';
import {
  type OutgoingMessage,
  SendError,
  type SendOptions,
  type SendResult,
  type StatusPost,
  type StatusResult,
} from '../types.ts';
import type { ServerAcks } from './acks.ts';
import type { ChatTimers } from './chat-timers.ts';
import type { ChatEvents } from './chats.ts';
import { toBaileysContent } from './content.ts';
import type { FreshGroups } from './fresh-groups.ts';
import type { HeldLidTexts } from './lid-texts.ts';
import type { SocketLifecycle } from './lifecycle.ts';
import type { LookupCaches } from './lookups.ts';
import type { PreparedMedia } from './media.ts';
import type { RestrictionTracker } from './restrictions.ts';
import { RATE_LIMITED, sendErrorOf } from './send.ts';
import type { BaileysSocket } from './socket.ts';
import { postStatus, statusAudience } from './status.ts';
import type { StoredMappings } from './stored-mappings.ts';

/** How many sent copies an account keeps in memory for rc14's getMessage (about 1 kB each). */
const COPIES_KEPT = 500;

/**
 * What the account sends: messages to chats, groups and channels, and Status posts, each checked
 * against what WhatsApp would refuse first (a number not on WhatsApp, an opt-out, an announce
 * group, a pause of restrictions.ts), and what WhatsApp refuses turned into a SendError.
 */
export class Outgoing {
  /**
   * Copies of the latest messages sent, kept from before their relay: rc14 asks getMessage for
   * one to answer a retry receipt (Socket/messages-recv.js sendMessagesAgain) once its own
   * per-socket cache is gone, and the engine stores a copy only with an outcome, which a send
   * that outlasted SEND_TIMEOUT_MS never gets.
   */
  private readonly copies = new LRUCache<string, string>({ max: COPIES_KEPT });

  constructor(
    private readonly deps: {
      /** The open socket, or SendError not-connected. */
      requireOpen: () => BaileysSocket;
      lifecycle: Pick<SocketLifecycle, 'generation' | 'me'>;
      mappings: Pick<StoredMappings, 'storedLid' | 'storedLids'>;
      restrictions: RestrictionTracker;
      caches: LookupCaches;
      lidTexts: HeldLidTexts;
      groups: FreshGroups;
      media: PreparedMedia;
      chats: Pick<ChatEvents, 'lastMessage'>;
      acks: ServerAcks;
      timers: Pick<ChatTimers, 'of'>;
    },
  ) {}

  /** A message sent lately, as rc14's getMessage wants it (BufferJSON). */
  copy(messageId: string): string | undefined {
    return this.copies.get(messageId);
  }

  async send(chatId: string, message: OutgoingMessage, options: SendOptions = {}): Promise<SendResult> {
    const { restrictions, caches, lidTexts, groups, lifecycle, mappings, acks } = this.deps;
    const sock = this.deps.requireOpen();
    if (restrictions.isRateLimited) throw new SendError('rate-limited', RATE_LIMITED);
    let ephemeralExpiration: number | undefined;
    if (isPhoneJid(chatId)) {
      const digits = jidUser(chatId);
      // The lookup is a usync query: WhatsApp's 429 or a cut socket refuse it as they refuse a send.
      const found = (
        await caches.onWhatsApp(sock, [digits], true).catch((err: unknown) => this.refused(err))
      ).get(digits);
      if (!found) throw new SendError('not-on-whatsapp', FAILURE_TEXTS.notOnWhatsApp);
      if (await lidTexts.optedOut(sock, found)) throw new SendError('invalid', FAILURE_TEXTS.optedOut);
      // The JID WhatsApp answered is where the chat lives.
      chatId = found;
    } else if (isGroupJid(chatId)) {
      const group = await groups
        .beforeSend(sock, lifecycle.generation, chatId)
        .catch((err) => this.refused(err));
      if (group?.announce && !group.isAdmin) throw new SendError('not-admin', FAILURE_TEXTS.notAdmin);
      // rc14 marks the stanza with the group's timer (Socket/messages-send.js relayMessage
      // `expiration`) but the message itself disappears only with contextInfo.expiration, which
      // generateWAMessageFromContent sets from `ephemeralExpiration` (Utils/messages.js).
      ephemeralExpiration = group?.ephemeralDuration || undefined;
    }
    // A contact whose LID is known is addressed by it, as a migrated chat is (whatsmeow send.go
    // resolveSendTarget → migrateSendTargetToLID for a phone-number target once the account's
    // chats moved to LIDs; Baileys #2683 reports 463 on phone-number sends to such contacts).
    // The chat the user sees is still the number.
    const address = isPhoneJid(chatId) ? ((await mappings.storedLid(chatId)) ?? chatId) : chatId;
    // A one-to-one chat's messages disappear with its timer, as the group's do with theirs
    // (chat-timers.ts): never "this message will not disappear" in a chat whose messages do.
    if (isPhoneJid(chatId) || isLidJid(chatId))
      ephemeralExpiration = (await this.deps.timers.of([chatId, address])) || undefined;
    // Checked: "typing…" may show now, in the chat the message goes to.
    await options.beforeRelay?.(address);
    const messageId = options.messageId || generateMessageIDV2(sock.user?.id);
    // The server's ack for this id, awaited from before the stanza is written (acks.ts).
    const acked = acks.expect(messageId);
    acked.catch(() => {});
    let sent: WAMessage | undefined;
    try {
      // A channel post is plaintext with its media uploaded raw: rc14's sendMessage does both for a
      // `@newsletter` jid (Socket/messages-send.js relayMessage isNewsletter, Utils/messages.js
      // prepareWAMessageMedia isNewsletter), which the media prepared once for chats would not.
      sent =
        message.kind === 'media' && !isChannelJid(chatId)
          ? await this.relayMedia(sock, address, message, messageId, ephemeralExpiration)
          : await sock.sendMessage(address, toBaileysContent(message), {
              messageId,
              ...(ephemeralExpiration ? { ephemeralExpiration } : {}),
            });
    } catch (err) {
      acks.forget(messageId);
      await this.refused(err, messageId);
    }
    if (!sent?.key.id) {
      acks.forget(messageId);
      throw new SendError('unknown', 'WhatsApp did not accept the message');
    }
    // Kept (by the engine, with the outcome) for retry requests and to decrypt poll votes (getMessage).
    const kept = sent.message ? JSON.stringify(sent.message, BufferJSON.replacer) : undefined;
    if (kept) this.copies.set(sent.key.id, kept);
    // Sent once the server acked it; refused with its error code; not sent when the socket closed
    // first (the recipient waits for the reconnect and goes again under this id).
    await acked.catch((err) => this.refused(err, messageId));
    return { messageId: sent.key.id, chatId, kept };
  }

  /**
   * One Status to `audience` (status.ts), each member by LID; refused as a send is, and sent, as a
   * message is, once the server acked it (a socket closed first: it goes again under
   * `options.messageId`). Its copy is kept as a message's is, for retry receipts.
   */
  async postStatus(post: StatusPost, audience: string[], options: SendOptions = {}): Promise<StatusResult> {
    const { acks, lifecycle, mappings } = this.deps;
    const sock = this.deps.requireOpen();
    if (this.deps.restrictions.isRateLimited) throw new SendError('rate-limited', RATE_LIMITED);
    const messageId = options.messageId || generateMessageIDV2(sock.user?.id);
    let posted: SendResult;
    let leftOut: string[];
    const acked = acks.expect(messageId);
    acked.catch(() => {});
    try {
      const addressed = await statusAudience(
        sock,
        audience,
        await mappings.storedLids(audience),
        lifecycle.me,
      );
      leftOut = addressed.leftOut;
      posted = await postStatus(sock, post, addressed.statusJidList, messageId);
    } catch (err) {
      acks.forget(messageId);
      return this.refused(err, messageId);
    }
    if (posted.kept) this.copies.set(posted.messageId, posted.kept);
    await acked.catch((err) => this.refused(err, messageId));
    return { ...posted, leftOut };
  }

  /**
   * A send WhatsApp or the socket refused, as a SendError; a 429 pauses the account's sends, a
   * 463 its new chats until the end restrictions.ts sets.
   */
  private async refused(err: unknown, messageId?: string): Promise<never> {
    const error = err instanceof SendError ? err : sendErrorOf(err);
    // A socket gone under the send: the message may have left; it goes again under its id.
    if (error.code === 'not-connected' && messageId && !error.messageId)
      throw new SendError(error.code, error.message, null, messageId);
    if (error.code === 'rate-limited') this.deps.restrictions.rateLimited();
    if (error.code === 'restricted')
      throw new SendError(error.code, error.message, await this.deps.restrictions.restricted463());
    throw error;
  }

  /**
   * Sends media prepared once for the message (media.ts), as rc14's sendMessage does:
   * generateWAMessageFromContent, then relayMessage (Socket/messages-send.js).
   */
  private async relayMedia(
    sock: BaileysSocket,
    chatId: string,
    message: Extract<OutgoingMessage, { kind: 'media' }>,
    messageId: string,
    ephemeralExpiration: number | undefined,
  ): Promise<WAMessage> {
    const content = await this.deps.media.content(sock, message);
    const userJid = sock.user?.id ?? '';
    const full = generateWAMessageFromContent(chatId, content, {
      userJid,
      messageId,
      ...(ephemeralExpiration ? { ephemeralExpiration } : {}),
    });
    // The copy exists before the relay: a retry receipt can come before the relay returns.
    this.copies.set(messageId, JSON.stringify(full.message, BufferJSON.replacer));
    await sock.relayMessage(chatId, full.message!, { messageId });
    // rc14's sendMessage emits our own message (emitOwnEvents): a group's last message.
    this.deps.chats.lastMessage(full, userJid);
    return full;
  }
}
