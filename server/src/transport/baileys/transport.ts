import { EventEmitter } from 'node:events';
import { FAILURE_TEXTS, isChannelJid, isGroupJid, isPhoneJid, jidUser } from '@wa/contract';
import {
  BufferJSON,
  generateMessageIDV2,
  generateWAMessageFromContent,
  getHistoryMsg,
  proto,
  type WAMessage,
} from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import {
  type GroupInfo,
  type GroupLookup,
  type OutgoingMessage,
  type PairingCode,
  SendError,
  type SendResult,
  type StatusPost,
  type Transport,
  type TransportChannels,
  type TransportEventMap,
  type TransportSession,
  type TransportState,
} from '../types.ts';
import { BaileysChannels } from './channels.ts';
import { ChatEvents } from './chats.ts';
import { toBaileysContent } from './content.ts';
import { FreshGroups } from './fresh-groups.ts';
import { takeBootstrap } from './history.ts';
import { InviteCodes } from './invite-codes.ts';
import { HeldLidTexts } from './lid-texts.ts';
import { SocketLifecycle } from './lifecycle.ts';
import { type LookupBatches, LookupCaches } from './lookups.ts';
import { toGroupInfo } from './mapping.ts';
import { PreparedMedia } from './media.ts';
import type { ProxySettings } from './proxy.ts';
import { RestrictionTracker } from './restrictions.ts';
import { RATE_LIMITED, RESTRICTED_463, sendErrorOf } from './send.ts';
import type { BaileysSocket, BaileysStorage, SocketMaker, WaVersion } from './socket.ts';
import { postStatus, statusViews } from './status.ts';

export type BaileysOptions = {
  /** Where the credentials, keys and sent-message copies are kept (socket.ts BaileysStorage). */
  storage: BaileysStorage;
  /** The session's cached groups (Baileys' `cachedGroupMetadata`, the announce check before a send). */
  groups: GroupLookup;
  log: FastifyBaseLogger;
  makeSocket?: SocketMaker;
  /** Pause between two invite-code queries (WhatsApp rate-limits them). */
  inviteCodeSpacingMs?: number;
  /** First reconnect delay; doubled per attempt up to `maxBackoffMs`, with jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** WA_VERSION: the client version to announce instead of the latest published one. */
  version?: WaVersion;
  /** WA_WS_URL (endpoint.ts): where the socket connects instead of WhatsApp. */
  waWebSocketUrl?: string;
  /** The account's proxy (issue 31, proxy.ts). */
  proxy?: ProxySettings;
  /** Where the latest WhatsApp Web version comes from (tests replace it). */
  fetchVersion?: () => Promise<WaVersion | null>;
  /** A connection that stayed open this long starts its reconnect backoff from the beginning again. */
  stableAfterMs?: number;
  /** How long an answer of `onWhatsApp` is trusted: yes for a day, no for an hour (the number may join). */
  onWhatsAppTtlMs?: { found: number; missing: number };
  /** Participant events of a group are followed by one metadata query this much later. */
  groupRefetchDelayMs?: number;
  /** A group whose members were last read longer ago than this is read again before a send to it. */
  groupFreshMs?: number;
  /** After a 429 (rate-overlimit) on a send, the account sends nothing for this long. */
  rateLimitPauseMs?: number;
  /** A 463 with no end given: new chats are tried again after `first`, doubled per 463 up to `max`. */
  restrictionRetryMs?: { first: number; max: number };
  /** How long an opened socket waits for `receivedPendingNotifications` before it sends anyway. */
  pendingNotificationsWaitMs?: number;
  /** Logins of this process (a start with many accounts) this far apart on average: 2 a second. */
  loginSpacingMs?: number;
  /** The longest a media upload may take (Baileys' own has no limit); below SEND_TIMEOUT_MS. */
  mediaUploadTimeoutMs?: number;
  /** A job's numbers asked this many a query, queries this far apart (lookups.ts). */
  lookupBatches?: LookupBatches;
  /** Whether a text is an opt-out keyword (a held LID text that is one stops the send: lid-texts.ts). */
  isOptOut?: (text: string) => boolean;
};

export { isLinked, LINKING_ATTEMPT_MS } from './lifecycle.ts';
export type { BaileysSocket, BaileysStorage, SocketMaker, WaVersion } from './socket.ts';

/** How many sent copies an account keeps in memory for rc14's getMessage (about 1 kB each). */
const COPIES_KEPT = 500;

/**
 * One WhatsApp account through Baileys: the socket lifecycle (lifecycle.ts), the restrictions
 * WhatsApp puts on it (restrictions.ts), what it looked up (lookups.ts) and the events of its
 * chats (chats.ts), composed into the Transport the engine and the session runner use.
 */
export class BaileysTransport extends EventEmitter<TransportEventMap> implements Transport {
  readonly sessionId: string;
  private readonly lifecycle: SocketLifecycle;
  private readonly restrictions: RestrictionTracker;
  private readonly caches: LookupCaches;
  private readonly chats: ChatEvents;
  private readonly media: PreparedMedia;
  private readonly lidTexts: HeldLidTexts;
  /** Message ids whose error status was already reported (rc14 may report one twice: upsert and update). */
  private readonly failedIds = new LRUCache<string, true>({ max: 1000 });
  /**
   * Copies of the latest messages sent, kept from before their relay: rc14 asks getMessage for
   * one to answer a retry receipt (Socket/messages-recv.js sendMessagesAgain) once its own
   * per-socket cache is gone, and the engine stores a copy only with an outcome, which a send
   * that outlasted SEND_TIMEOUT_MS never gets.
   */
  private readonly copies = new LRUCache<string, string>({ max: COPIES_KEPT });
  private readonly groups: FreshGroups;
  private readonly phoneDigits: string;
  private readonly invites: InviteCodes;
  /** Channels (newsletters) through rc14's Socket/newsletter.js. */
  readonly channels: TransportChannels = new BaileysChannels(() => this.requireOpen());

  constructor(
    session: TransportSession,
    private readonly deps: BaileysOptions,
  ) {
    super();
    this.sessionId = session.sessionId;
    this.phoneDigits = session.phoneNumber.replace(/\D/g, '');
    this.invites = new InviteCodes(deps.inviteCodeSpacingMs ?? 2000);
    this.groups = new FreshGroups({
      groups: deps.groups,
      freshMs: deps.groupFreshMs ?? 5 * 60_000,
      upsert: (info) =>
        this.emit('groups-upsert', [{ ...info, lastMessage: this.chats.lastMessages.get(info.id) ?? null }]),
    });
    this.lidTexts = new HeldLidTexts({
      store: deps.storage.lidTexts,
      isOptOut: deps.isOptOut ?? (() => false),
      report: (text) => this.emit('incoming-text', text),
      log: deps.log.child({ sessionId: this.sessionId }),
    });
    this.caches = new LookupCaches(
      deps.onWhatsAppTtlMs ?? { found: 24 * 3_600_000, missing: 3_600_000 },
      deps.storage.numbers,
      deps.lookupBatches ?? { size: 50, spacingMs: 3000 },
      {
        answered: (sock, jids) => this.lidTexts.resolveBatch(sock, jids),
        // Why earlier sends may never arrive (issue 26): the engine keeps it on their recipients.
        missing: (chatIds) => this.emit('undelivered-cause', { cause: 'not-on-whatsapp', chatIds }),
        retriesGivenUp: (messageId) =>
          this.emit('undelivered-cause', { cause: 'decrypt-gave-up', messageIds: [messageId] }),
      },
    );
    this.restrictions = new RestrictionTracker(
      (q) => this.emit('quota', q),
      deps.rateLimitPauseMs ?? 60_000,
      deps.restrictionRetryMs,
      deps.storage.restrictionSteps,
    );
    this.media = new PreparedMedia(deps.log, deps.mediaUploadTimeoutMs ?? 60_000);
    const storage: BaileysStorage = {
      ...deps.storage,
      sentCopy: async (id) => this.copies.get(id) ?? deps.storage.sentCopy(id),
    };
    this.lifecycle = new SocketLifecycle(this, {
      sessionId: this.sessionId,
      storage,
      groups: (jid) => this.groups.lookup(jid),
      caches: this.caches,
      log: deps.log,
      ...(deps.makeSocket ? { makeSocket: deps.makeSocket } : {}),
      ...(deps.version ? { version: deps.version } : {}),
      ...(deps.waWebSocketUrl ? { waWebSocketUrl: deps.waWebSocketUrl } : {}),
      ...(deps.proxy ? { proxy: deps.proxy } : {}),
      ...(deps.fetchVersion ? { fetchVersion: deps.fetchVersion } : {}),
      backoffMs: deps.backoffMs ?? 2000,
      maxBackoffMs: deps.maxBackoffMs ?? 5 * 60_000,
      stableAfterMs: deps.stableAfterMs ?? 60_000,
      pendingNotificationsWaitMs: deps.pendingNotificationsWaitMs ?? 30_000,
      loginSpacingMs: deps.loginSpacingMs ?? 500,
      listen: (sock, generation) => this.listen(sock, generation),
      opened: (sock) =>
        void sock
          .fetchNewChatMessageCap()
          .then((info) => this.restrictions.noteQuota(info))
          .catch(() => {}),
      dropped: () => this.chats.reset(),
      wiped: () => this.caches.clear(),
    });
    this.chats = new ChatEvents(this, {
      sessionId: this.sessionId,
      groups: deps.groups,
      log: deps.log,
      groupRefetchDelayMs: deps.groupRefetchDelayMs ?? 30_000,
      holdLidText: (lid, messageId, text) => this.lidTexts.hold(lid, messageId, text),
      current: () => ({ sock: this.lifecycle.sock, generation: this.lifecycle.generation }),
    });
  }

  get state(): TransportState {
    return this.lifecycle.state;
  }

  connect(): Promise<void> {
    return this.lifecycle.connect();
  }

  close(): Promise<void> {
    return this.lifecycle.close();
  }

  logout(): Promise<void> {
    return this.lifecycle.logout();
  }

  async fetchGroups(): Promise<GroupInfo[]> {
    const sock = this.requireOpen();
    const generation = this.lifecycle.generation;
    const all = await sock.groupFetchAllParticipating();
    this.groups.readAll(Object.keys(all), generation);
    return Object.values(all).map((meta) => toGroupInfo(meta, this.chats.lastMessages.get(meta.id)));
  }

  /** Invite codes one at a time, spaced (invite-codes.ts). */
  inviteCode(groupId: string): Promise<string | null> {
    return this.invites.code(() => this.requireOpen(), groupId);
  }

  /** Which numbers are on WhatsApp (lookups.ts), with the chat JID WhatsApp answers for each. */
  onWhatsApp(phoneNumbers: string[]): Promise<Map<string, string | null>> {
    return this.caches.onWhatsApp(this.requireOpen(), phoneNumbers);
  }

  /** The pairing code of the current linking attempt (lifecycle.ts). */
  requestPairingCode(): Promise<PairingCode> {
    return this.lifecycle.requestPairingCode(this.phoneDigits);
  }

  async send(chatId: string, message: OutgoingMessage): Promise<SendResult> {
    const sock = this.requireOpen();
    if (this.restrictions.isRateLimited) throw new SendError('rate-limited', RATE_LIMITED);
    let ephemeralExpiration: number | undefined;
    if (isPhoneJid(chatId)) {
      const digits = jidUser(chatId);
      // The lookup is a usync query: WhatsApp's 429 or a cut socket refuse it as they refuse a send.
      const found = (
        await this.caches.onWhatsApp(sock, [digits], true).catch((err: unknown) => this.refused(err))
      ).get(digits);
      if (!found) throw new SendError('not-on-whatsapp', FAILURE_TEXTS.notOnWhatsApp);
      if (await this.lidTexts.optedOut(sock, found)) throw new SendError('invalid', FAILURE_TEXTS.optedOut);
      // The JID WhatsApp answered is where the chat lives.
      chatId = found;
    } else if (isGroupJid(chatId)) {
      const group = await this.groups
        .beforeSend(sock, this.lifecycle.generation, chatId)
        .catch((err) => this.refused(err));
      if (group?.announce && !group.isAdmin) throw new SendError('not-admin', FAILURE_TEXTS.notAdmin);
      // rc14 marks the stanza with the group's timer (Socket/messages-send.js relayMessage
      // `expiration`) but the message itself disappears only with contextInfo.expiration, which
      // generateWAMessageFromContent sets from `ephemeralExpiration` (Utils/messages.js).
      ephemeralExpiration = group?.ephemeralDuration || undefined;
    }
    const messageId = generateMessageIDV2(sock.user?.id);
    let sent: WAMessage | undefined;
    try {
      // A channel post is plaintext with its media uploaded raw: rc14's sendMessage does both for a
      // `@newsletter` jid (Socket/messages-send.js relayMessage isNewsletter, Utils/messages.js
      // prepareWAMessageMedia isNewsletter), which the media prepared once for chats would not.
      sent =
        message.kind === 'media' && !isChannelJid(chatId)
          ? await this.relayMedia(sock, chatId, message, messageId, ephemeralExpiration)
          : await sock.sendMessage(chatId, toBaileysContent(message), {
              messageId,
              ...(ephemeralExpiration ? { ephemeralExpiration } : {}),
            });
    } catch (err) {
      await this.refused(err);
    }
    if (!sent?.key.id) throw new SendError('unknown', 'WhatsApp did not accept the message');
    // Sent: rc14 sends no ack of the server (SERVER_ACK comes from the phone's receipt), so
    // waiting for one only delayed every send. A later refusal arrives as an error status.
    // Kept (by the engine, with the outcome) for retry requests and to decrypt poll votes (getMessage).
    const kept = sent.message ? JSON.stringify(sent.message, BufferJSON.replacer) : undefined;
    if (kept) this.copies.set(sent.key.id, kept);
    return { messageId: sent.key.id, chatId, kept };
  }

  /** One Status to `audience` (status.ts); refused as a send is. */
  async postStatus(post: StatusPost, audience: string[]): Promise<SendResult> {
    const sock = this.requireOpen();
    if (this.restrictions.isRateLimited) throw new SendError('rate-limited', RATE_LIMITED);
    return postStatus(sock, post, audience, this.lifecycle.me.id).catch((err) => this.refused(err));
  }

  /**
   * A send WhatsApp or the socket refused, as a SendError; a 429 pauses the account's sends, a
   * 463 its new chats until the end restrictions.ts sets.
   */
  private async refused(err: unknown): Promise<never> {
    const error = sendErrorOf(err);
    if (error.code === 'rate-limited') this.restrictions.rateLimited();
    if (error.code === 'restricted')
      throw new SendError(error.code, error.message, await this.restrictions.restricted463());
    throw error;
  }

  /** Shows "typing…" in the chat or stops it (rc14 lib/Socket/chats.js sendPresenceUpdate: a chatstate node). */
  async presence(chatId: string, state: 'composing' | 'paused'): Promise<void> {
    await this.requireOpen().sendPresenceUpdate(state, chatId);
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
    const content = await this.media.content(sock, message);
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
    this.chats.lastMessage(full, userJid);
    return full;
  }

  private requireOpen(): BaileysSocket {
    const sock = this.lifecycle.requireOpen();
    if (!sock) throw new SendError('not-connected', 'Session is not connected');
    return sock;
  }

  /** The transport's handlers on a new socket (the lifecycle has its own: creds, connection). */
  private listen(sock: BaileysSocket, generation: number): void {
    const ev = sock.ev;
    const ownJid = () => this.lifecycle.me.id;
    ev.on('connection.update', (u) => {
      if (u.reachoutTimeLock && generation === this.lifecycle.generation)
        this.restrictions.noteTimelock(u.reachoutTimeLock);
    });
    ev.on('messages.upsert', ({ messages, type }) => {
      for (const m of messages) {
        // Live messages come as 'notify'; those WhatsApp held while this device was offline as
        // 'append' (Socket/messages-recv.js handleMessage: node.attrs.offline ? 'append' : 'notify').
        if ((type === 'notify' || type === 'append') && !m.key.fromMe) this.chats.incomingText(generation, m);
        // rc14's event buffer merges an update into a buffered upsert of the same message
        // (Utils/event-buffer.js): an error ack then arrives as our own upsert with status ERROR.
        if (m.key.fromMe && m.key.id && m.status === proto.WebMessageInfo.Status.ERROR)
          this.onSendError(generation, m.key.id, m.messageStubParameters?.[0]);
        const history = m.key.fromMe && m.message ? getHistoryMsg(m.message) : undefined;
        if (history?.syncType === proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP)
          void takeBootstrap(sock, history, this.deps.log.child({ sessionId: this.sessionId }));
        this.chats.lastMessage(m, ownJid());
      }
    });
    ev.on('messages.update', (updates) =>
      this.chats.statusUpdates(updates, (id, code) => this.onSendError(generation, id, code)),
    );
    ev.on('message-receipt.update', (updates) => {
      this.chats.memberReceipts(updates);
      void statusViews(sock, updates).then((views) => {
        for (const v of views) this.emit('receipt', v);
      });
    });
    ev.on('groups.upsert', (metas) => this.chats.groupsUpsert(metas));
    ev.on('groups.update', (updates) => this.chats.groupsUpdate(generation, updates));
    ev.on('group-participants.update', (update) => this.chats.participantsUpdate(generation, update));
    ev.on('message-capping.update', (info) => this.restrictions.noteQuota(info));
    ev.on('lid-mapping.update', ({ lid, pn }) =>
      this.lidTexts
        .mapped(lid, pn)
        .catch((err) => this.deps.log.warn({ err, sessionId: this.sessionId }, 'held LID texts failed')),
    );
  }

  /**
   * WhatsApp refused a sent message (Socket/messages-recv.js handleBadAck: status ERROR with the
   * error code first in messageStubParameters). 463 restricts new chats: rc14 itself does not ask
   * until when for it (its 463 branch is the tctoken one), so the transport asks.
   */
  private onSendError(generation: number, messageId: string, code: string | undefined): void {
    if (this.failedIds.has(messageId)) return;
    this.failedIds.set(messageId, true);
    if (code === '463') {
      this.emit('send-failed', { messageId, code: 'restricted', reason: RESTRICTED_463 });
      // Asked once the growing pause is counted (a write), so that WhatsApp's answer comes after it.
      void this.restrictions
        .restricted463()
        .catch(() => {})
        .then(() => {
          const sock = this.lifecycle.sock;
          if (!sock || generation !== this.lifecycle.generation) return;
          // Its answer comes back as connection.update reachoutTimeLock (Socket/socket.js).
          return sock
            .fetchAccountReachoutTimelock()
            .catch((err) =>
              this.deps.log.warn({ err, sessionId: this.sessionId }, 'could not read the reach-out timelock'),
            );
        });
      return;
    }
    this.emit('send-failed', {
      messageId,
      code: 'unknown',
      reason: `WhatsApp refused the message (error ${code ?? 'unknown'})`,
    });
  }
}
