import { EventEmitter } from 'node:events';
import {
  BufferJSON,
  type ConnectionState,
  fetchLatestWaWebVersion,
  type GroupMetadata,
  makeCacheableSignalKeyStore,
  makeWASocket,
  type NewChatMessageCapInfo,
  normalizeMessageContent,
  proto,
  type SignalKeyStore,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
} from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client.ts';
import type { AuthStore } from '../auth-store.ts';
import { findSentMessage, recordSentMessage } from '../sent-messages.ts';
import {
  type GroupInfo,
  type GroupLookup,
  type IncomingLastMessage,
  type OutgoingMessage,
  SendError,
  type SendResult,
  type Transport,
  type TransportEventMap,
  type TransportSession,
  type TransportState,
} from '../types.ts';
import { type DbAuthState, loadDbAuthState } from './auth-state.ts';
import { closeDecision } from './close-policy.ts';
import { toBaileysContent } from './content.ts';
import {
  applyParticipantChange,
  digitsOfJid,
  messageBody,
  statusCodeOf,
  toGroupInfo,
  toGroupMetadata,
  toParticipant,
} from './mapping.ts';
import { AckTracker, RATE_LIMITED, sendErrorOf } from './send.ts';

/** The part of a Baileys socket this transport uses; tests drive it with a fake. */
export type BaileysSocket = Pick<
  ReturnType<typeof makeWASocket>,
  | 'ev'
  | 'end'
  | 'logout'
  | 'user'
  | 'groupFetchAllParticipating'
  | 'groupMetadata'
  | 'groupInviteCode'
  | 'onWhatsApp'
  | 'sendMessage'
  | 'fetchNewChatMessageCap'
>;
export type SocketMaker = (config: UserFacingSocketConfig) => BaileysSocket;

export type BaileysOptions = {
  db: Db;
  auth: AuthStore;
  /** The session's cached groups (Baileys' `cachedGroupMetadata`, the announce check before a send). */
  groups: GroupLookup;
  log: FastifyBaseLogger;
  makeSocket?: SocketMaker;
  /** Pause between two invite-code queries (WhatsApp rate-limits them). */
  inviteCodeSpacingMs?: number;
  /** First reconnect delay; doubled per attempt up to `maxBackoffMs`, with jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long a send waits for the server's ack, which is where error 463 arrives. */
  ackWaitMs?: number;
  /** WA_VERSION: the client version to announce instead of the latest published one. */
  version?: WaVersion;
  /** Where the latest WhatsApp Web version comes from (tests replace it). */
  fetchVersion?: () => Promise<WaVersion | null>;
  /** A connection that stayed open this long starts its reconnect backoff from the beginning again. */
  stableAfterMs?: number;
  /** How long an answer of `onWhatsApp` is trusted: yes for a day, no for an hour (the number may join). */
  onWhatsAppTtlMs?: { found: number; missing: number };
  /** Participant events of a group are followed by one metadata query this much later. */
  groupRefetchDelayMs?: number;
  /** After a 429 (rate-overlimit) on a send, the account sends nothing for this long. */
  rateLimitPauseMs?: number;
  /** How long an opened socket waits for `receivedPendingNotifications` before it sends anyway. */
  pendingNotificationsWaitMs?: number;
};

export type WaVersion = [number, number, number];

/** How long the latest WhatsApp Web version is looked up before Baileys' bundled one is used. */
const VERSION_FETCH_TIMEOUT_MS = 5000;
/** A looked-up version is reused for an hour (every reconnect needs one). */
const VERSION_REUSE_MS = 60 * 60_000;
let latestVersion: { version: Promise<WaVersion | null>; at: number } | null = null;

/**
 * The latest WhatsApp Web version (Utils/generics.js fetchLatestWaWebVersion), null when it
 * cannot be read within 5 s: then the socket uses the version bundled with Baileys
 * (Defaults/index.js), which WhatsApp may have stopped accepting (405).
 */
async function fetchLatestVersion(): Promise<WaVersion | null> {
  if (!latestVersion || Date.now() - latestVersion.at > VERSION_REUSE_MS) {
    const version = fetchLatestWaWebVersion({ signal: AbortSignal.timeout(VERSION_FETCH_TIMEOUT_MS) }).then(
      (r) => (r.isLatest ? (r.version as WaVersion) : null),
      () => null,
    );
    latestVersion = { version, at: Date.now() };
  }
  return latestVersion.version;
}

/** Ends a socket and removes our handlers (rc14's socket `end` returns at once when already closed). */
function detach(sock: BaileysSocket): void {
  // rc14's ev.removeAllListeners(event) takes one event: with undefined it removed nothing.
  for (const event of SOCKET_EVENTS) sock.ev.removeAllListeners(event);
  sock.end(undefined).catch(() => {});
}

/** Events this transport listens to on a socket, removed one by one when the socket is dropped. */
const SOCKET_EVENTS = [
  'creds.update',
  'connection.update',
  'messages.upsert',
  'messages.update',
  'message-receipt.update',
  'groups.upsert',
  'groups.update',
  'group-participants.update',
  'message-capping.update',
] as const;

/**
 * One WhatsApp account through Baileys. A socket is single-use: every reconnect builds a new
 * one with its handlers. Auth state lives in the database (never in files).
 */
export class BaileysTransport extends EventEmitter<TransportEventMap> implements Transport {
  readonly sessionId: string;
  private current: TransportState = 'closed';
  private sock: BaileysSocket | null = null;
  private auth: DbAuthState | null = null;
  /** One cache over the stored keys for the session's lifetime, shared by its successive sockets. */
  private keyStore: SignalKeyStore | null = null;
  /** Bumped for every socket, so events of an old socket are ignored. */
  private generation = 0;
  private stopped = true;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private capped = false;
  private readonly lastMessages = new Map<string, IncomingLastMessage>();
  /** Digits -> the chat JID WhatsApp answered ('' for not on WhatsApp). */
  private readonly onWhatsAppCache = new LRUCache<string, string>({ max: 50_000 });
  /** When the current socket opened; the backoff restarts only after it stayed up. */
  private openedAt: number | null = null;
  /** Members of groups changed by events since their last query, and the chain applying the events. */
  private readonly changedMembers = new Map<string, GroupInfo['participants']>();
  private participantChanges: Promise<void> = Promise.resolve();
  /** Opens the socket for sending if the offline notifications never come. */
  private pendingTimer: NodeJS.Timeout | null = null;
  /** Group metadata queries waiting for the events to calm down, by group. */
  private readonly groupRefetches = new Map<string, NodeJS.Timeout>();
  /** Until when WhatsApp asked this account to slow down (429 rate-overlimit on a send). */
  private rateLimitedUntil = 0;
  /** Saves of the credentials, one after the other, so an older snapshot never lands last. */
  private credsSaving: Promise<void> = Promise.resolve();
  private readonly acks: AckTracker;
  private inviteGate: Promise<void> = Promise.resolve();
  private readonly makeSocket: SocketMaker;
  private readonly options: Required<
    Pick<
      BaileysOptions,
      | 'inviteCodeSpacingMs'
      | 'backoffMs'
      | 'maxBackoffMs'
      | 'ackWaitMs'
      | 'stableAfterMs'
      | 'onWhatsAppTtlMs'
      | 'groupRefetchDelayMs'
      | 'rateLimitPauseMs'
      | 'pendingNotificationsWaitMs'
    >
  >;

  constructor(
    session: TransportSession,
    private readonly deps: BaileysOptions,
  ) {
    super();
    this.sessionId = session.sessionId;
    this.makeSocket = deps.makeSocket ?? ((config) => makeWASocket(config));
    this.options = {
      inviteCodeSpacingMs: deps.inviteCodeSpacingMs ?? 2000,
      backoffMs: deps.backoffMs ?? 2000,
      maxBackoffMs: deps.maxBackoffMs ?? 5 * 60_000,
      ackWaitMs: deps.ackWaitMs ?? 3000,
      stableAfterMs: deps.stableAfterMs ?? 60_000,
      groupRefetchDelayMs: deps.groupRefetchDelayMs ?? 30_000,
      rateLimitPauseMs: deps.rateLimitPauseMs ?? 60_000,
      pendingNotificationsWaitMs: deps.pendingNotificationsWaitMs ?? 30_000,
      onWhatsAppTtlMs: deps.onWhatsAppTtlMs ?? { found: 24 * 3_600_000, missing: 3_600_000 },
    };
    this.acks = new AckTracker(this.options.ackWaitMs);
  }

  get state(): TransportState {
    return this.current;
  }

  async connect(): Promise<void> {
    this.stopped = false;
    this.attempt = 0;
    await this.openSocket();
  }

  async close(): Promise<void> {
    const wasOpen = this.current !== 'closed';
    this.stopped = true;
    this.dropSocket();
    if (!wasOpen) return;
    this.current = 'closed';
    this.emit('connection', {
      state: 'closed',
      reason: 'Connection closed',
      loggedOut: false,
      willReconnect: false,
    });
  }

  async logout(): Promise<void> {
    this.stopped = true;
    const sock = this.sock;
    try {
      // Unlinks the device on the phone; needs a live connection.
      if (sock && this.current === 'open') await sock.logout();
    } finally {
      this.dropSocket();
      await this.wipe();
      this.current = 'closed';
      this.emit('connection', {
        state: 'closed',
        reason: 'Logged out',
        loggedOut: true,
        willReconnect: false,
      });
    }
  }

  async fetchGroups(): Promise<GroupInfo[]> {
    const sock = this.requireOpen();
    const all = await sock.groupFetchAllParticipating();
    return Object.values(all).map((meta) => toGroupInfo(meta, this.lastMessages.get(meta.id)));
  }

  /** Invite codes one at a time, spaced, so that a large account does not hit WhatsApp's rate limit. */
  async inviteCode(groupId: string): Promise<string | null> {
    const turn = this.inviteGate.then(async () => {
      const sock = this.requireOpen();
      try {
        return (await sock.groupInviteCode(groupId)) ?? null;
      } catch (err) {
        const code = (err as { data?: unknown }).data;
        // Not admin (any more): no link.
        if (code === 401 || code === 403 || statusCodeOf(err) === 401 || statusCodeOf(err) === 403)
          return null;
        throw err;
      } finally {
        await new Promise((r) => setTimeout(r, this.options.inviteCodeSpacingMs));
      }
    });
    this.inviteGate = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /**
   * Which numbers are on WhatsApp, with the chat JID WhatsApp answers for each. That JID may
   * differ from the number asked (Brazil's 9th digit, Mexico's 52 1, Argentina's 54 9): rc14's
   * onWhatsApp (Socket/socket.js) lists only the numbers that exist, each under its canonical
   * JID, with nothing that says which number it answers; numbers it cannot pair up are asked
   * one at a time.
   */
  async onWhatsApp(phoneNumbers: string[]): Promise<Map<string, string | null>> {
    const sock = this.requireOpen();
    const out = new Map<string, string | null>();
    const unknown: string[] = [];
    for (const p of phoneNumbers) {
      const cached = this.onWhatsAppCache.get(p.replace(/\D/g, ''));
      if (cached !== undefined) out.set(p, cached || null);
      else unknown.push(p);
    }
    const remember = (p: string, jid: string | null) => {
      const { found, missing } = this.options.onWhatsAppTtlMs;
      this.onWhatsAppCache.set(p.replace(/\D/g, ''), jid ?? '', { ttl: jid ? found : missing });
      out.set(p, jid);
    };
    if (unknown.length === 0) return out;
    const ask = async (numbers: string[]) =>
      ((await sock.onWhatsApp(...numbers.map((p) => p.replace(/\D/g, '')))) ?? []).filter((r) => r.exists);
    const results = await ask(unknown);
    const unmatched = new Set(results.map((r) => r.jid));
    const left: string[] = [];
    for (const p of unknown) {
      const digits = p.replace(/\D/g, '');
      const hit = results.find((r) => r.jid.split('@')[0] === digits);
      if (hit) {
        unmatched.delete(hit.jid);
        remember(p, hit.jid);
      } else left.push(p);
    }
    if (unmatched.size === 0) for (const p of left) remember(p, null);
    else if (left.length === 1) remember(left[0]!, [...unmatched][0]!);
    else for (const p of left) remember(p, (await ask([p]))[0]?.jid ?? null);
    return out;
  }

  async send(chatId: string, message: OutgoingMessage): Promise<SendResult> {
    const sock = this.requireOpen();
    if (this.capped) throw new SendError('capped', "Paused: WhatsApp's new-chat limit was reached");
    if (Date.now() < this.rateLimitedUntil) throw new SendError('rate-limited', RATE_LIMITED);
    if (chatId.endsWith('@s.whatsapp.net')) {
      const digits = chatId.split('@')[0]!;
      const found = (await this.onWhatsApp([digits])).get(digits);
      if (!found) throw new SendError('not-on-whatsapp', 'Not on WhatsApp');
      // The JID WhatsApp answered is where the chat lives.
      chatId = found;
    } else if (chatId.endsWith('@g.us')) {
      const group = await this.deps.groups(chatId);
      if (group?.announce && !group.isAdmin)
        throw new SendError('not-admin', 'Only admins can send messages to this group');
    }
    let sent: WAMessage | undefined;
    try {
      sent = await sock.sendMessage(chatId, toBaileysContent(message));
    } catch (err) {
      const error = sendErrorOf(err);
      if (error.code === 'rate-limited') this.rateLimitedUntil = Date.now() + this.options.rateLimitPauseMs;
      throw error;
    }
    const messageId = sent?.key.id;
    if (!sent || !messageId) throw new SendError('unknown', 'WhatsApp did not accept the message');
    // Kept for retry requests and to decrypt poll votes (getMessage).
    if (sent.message) {
      await recordSentMessage(this.deps.db, {
        sessionId: this.sessionId,
        messageId,
        chatId,
        message: JSON.stringify(sent.message, BufferJSON.replacer),
      }).catch((err) => this.deps.log.warn({ err, messageId }, 'could not store the sent message'));
    }
    const ackError = await this.acks.wait(messageId);
    if (ackError === '463') {
      const reason = 'Paused: WhatsApp restricted this account from starting new chats (error 463)';
      this.emit('quota', { capped: true, reason });
      throw new SendError('restricted', reason);
    }
    if (ackError) throw new SendError('unknown', `WhatsApp refused the message (error ${ackError})`);
    return { messageId, chatId };
  }

  private requireOpen(): BaileysSocket {
    if (this.current !== 'open' || !this.sock)
      throw new SendError('not-connected', 'Session is not connected');
    return this.sock;
  }

  private async openSocket(): Promise<void> {
    if (this.stopped) return;
    this.dropSocket();
    const generation = ++this.generation;
    this.current = 'connecting';
    this.emit('connection', { state: 'connecting' });
    if (!this.auth) {
      this.auth = await loadDbAuthState(this.deps.auth);
      this.keyStore = null;
    }
    if (generation !== this.generation || this.stopped) return;
    const auth = this.auth;
    const version = this.deps.version ?? (await (this.deps.fetchVersion ?? fetchLatestVersion)());
    if (generation !== this.generation || this.stopped || this.auth !== auth) return;
    const logger = this.deps.log.child({ module: 'baileys' }, { level: 'warn' });
    this.keyStore ??= makeCacheableSignalKeyStore(auth.state.keys, logger);
    const keyStore = this.keyStore;
    let sock: BaileysSocket;
    try {
      sock = this.makeSocket({
        auth: { creds: auth.state.creds, keys: keyStore },
        ...(version ? { version } : {}),
        logger,
        markOnlineOnConnect: false,
        syncFullHistory: false,
        // No full history; the initial bootstrap stays, as it carries the LID ↔ phone mappings.
        shouldSyncHistoryMessage: ({ syncType }) => syncType !== proto.HistorySync.HistorySyncType.FULL,
        generateHighQualityLinkPreview: false,
        cachedGroupMetadata: async (jid) => {
          const group = await this.deps.groups(jid);
          return group ? toGroupMetadata(group) : undefined;
        },
        getMessage: async (key: WAMessageKey) => {
          if (!key.id) return undefined;
          const text = await findSentMessage(this.deps.db, this.sessionId, key.id);
          return text ? proto.Message.fromObject(JSON.parse(text, BufferJSON.reviver)) : undefined;
        },
      });
    } catch (err) {
      this.onClose(generation, err);
      return;
    }
    this.sock = sock;
    const ev = sock.ev;
    ev.on('creds.update', () => {
      this.credsSaving = this.credsSaving.then(async () => {
        // After a wipe (401, logout) a late update must not bring the credentials back.
        if (this.auth !== auth) return;
        try {
          await auth.saveCreds();
          if (auth.state.creds.me) this.emit('creds-saved');
        } catch (err) {
          this.deps.log.error({ err, sessionId: this.sessionId }, 'could not save credentials');
        }
      });
    });
    ev.on('connection.update', (u) => this.onConnectionUpdate(generation, u));
    ev.on('messages.upsert', ({ messages }) => {
      for (const m of messages) {
        // rc14's event buffer merges an update into a buffered upsert of the same message
        // (Utils/event-buffer.js): an error ack then arrives as our own upsert with status ERROR.
        if (m.key.fromMe && m.key.id && m.status === proto.WebMessageInfo.Status.ERROR)
          this.acks.settle(m.key.id, m.messageStubParameters?.[0] ?? 'unknown');
        this.noteLastMessage(m);
      }
    });
    ev.on('messages.update', (updates) => {
      for (const { key, update } of updates) {
        if (!key.id || !key.fromMe) continue;
        if (update.status === proto.WebMessageInfo.Status.ERROR) {
          this.acks.settle(key.id, update.messageStubParameters?.[0] ?? 'unknown');
        } else if (update.status === proto.WebMessageInfo.Status.SERVER_ACK) {
          this.acks.settle(key.id, null);
        } else if (update.status === proto.WebMessageInfo.Status.DELIVERY_ACK) {
          this.acks.settleIfWaiting(key.id);
          this.emit('receipt', { messageId: key.id, status: 'delivered', at: new Date() });
        } else if (
          update.status === proto.WebMessageInfo.Status.READ ||
          update.status === proto.WebMessageInfo.Status.PLAYED
        ) {
          this.acks.settleIfWaiting(key.id);
          this.emit('receipt', { messageId: key.id, status: 'read', at: new Date() });
        }
      }
    });
    // Group receipts arrive per member here; matched on the message id, since JIDs may be LIDs.
    ev.on('message-receipt.update', (updates) => {
      for (const { key, receipt } of updates) {
        if (!key.id) continue;
        if (receipt.readTimestamp)
          this.emit('receipt', {
            messageId: key.id,
            status: 'read',
            at: new Date(Number(receipt.readTimestamp) * 1000),
          });
        else if (receipt.receiptTimestamp)
          this.emit('receipt', {
            messageId: key.id,
            status: 'delivered',
            at: new Date(Number(receipt.receiptTimestamp) * 1000),
          });
      }
    });
    ev.on('groups.upsert', (metas) =>
      this.emit(
        'groups-upsert',
        metas.map((m) => toGroupInfo(m)),
      ),
    );
    ev.on('groups.update', (updates) => {
      const changes = updates
        .filter((u): u is Partial<GroupMetadata> & { id: string } => !!u.id)
        .map((u) => ({
          id: u.id,
          ...(u.subject !== undefined ? { subject: u.subject } : {}),
          ...(u.announce !== undefined ? { announce: !!u.announce } : {}),
        }));
      if (changes.length > 0) this.emit('groups-update', changes);
    });
    ev.on('group-participants.update', ({ id, action, participants }) => {
      // The change goes into the cache at once; one query later confirms the whole group. A query
      // per event made WhatsApp answer rate-overlimit (429) on busy groups.
      // In order, each on the members as the previous event left them (the cache is written later).
      this.participantChanges = this.participantChanges.then(async () => {
        try {
          const base = this.changedMembers.get(id) ?? (await this.deps.groups(id))?.participants;
          if (!base || generation !== this.generation) return;
          const members = applyParticipantChange(base, action, participants.map(toParticipant));
          this.changedMembers.set(id, members);
          this.emit('groups-update', [{ id, participants: members }]);
        } catch (err) {
          this.deps.log.warn({ err, groupId: id }, 'group participants update failed');
        }
      });
      this.refetchGroupLater(id, generation);
    });
    ev.on('message-capping.update', (info) => this.noteQuota(info));
  }

  /** One metadata query per group per `groupRefetchDelayMs`, however many events arrive. */
  private refetchGroupLater(groupId: string, generation: number): void {
    if (this.groupRefetches.has(groupId)) return;
    const timer = setTimeout(() => {
      this.groupRefetches.delete(groupId);
      const sock = this.sock;
      if (!sock || generation !== this.generation) return;
      sock
        .groupMetadata(groupId)
        .then((meta) => {
          this.changedMembers.delete(groupId);
          this.emit('groups-upsert', [toGroupInfo(meta, this.lastMessages.get(groupId))]);
        })
        .catch((err) => this.deps.log.warn({ err, groupId }, 'group metadata refresh failed'));
    }, this.options.groupRefetchDelayMs);
    this.groupRefetches.set(groupId, timer);
  }

  private onConnectionUpdate(generation: number, u: Partial<ConnectionState>): void {
    if (generation !== this.generation || this.stopped) return;
    if (u.qr) {
      this.current = 'qr';
      this.emit('connection', { state: 'qr', qr: u.qr });
    }
    if (u.connection === 'open') {
      this.openedAt = Date.now();
      // Sending waits for the offline notifications: until then rc14 buffers events
      // (Socket/socket.js CB:ib,,offline), so an error ack (463) could merge into the buffer unseen.
      if (this.pendingTimer) clearTimeout(this.pendingTimer);
      this.pendingTimer = setTimeout(
        () => this.markOpen(generation),
        this.options.pendingNotificationsWaitMs,
      );
    }
    if (u.receivedPendingNotifications === true) this.markOpen(generation);
    if (u.connection === 'close') this.onClose(generation, u.lastDisconnect?.error);
  }

  /** The socket is open and past its login: it may send. */
  private markOpen(generation: number): void {
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.pendingTimer = null;
    if (generation !== this.generation || this.stopped || this.current === 'open' || this.openedAt === null)
      return;
    this.current = 'open';
    const me = this.sock?.user ?? this.auth?.state.creds.me;
    this.emit('connection', {
      state: 'open',
      jid: me?.id ?? '',
      lid: me?.lid ?? this.auth?.state.creds.me?.lid ?? null,
    });
    this.sock
      ?.fetchNewChatMessageCap()
      .then((info) => this.noteQuota(info))
      .catch(() => {});
  }

  /** Applies the close-code policy (close-policy.ts) to a closed socket. */
  private onClose(generation: number, error: unknown): void {
    if (generation !== this.generation || this.stopped) return;
    const sock = this.sock;
    this.sock = null;
    if (sock) detach(sock);
    this.current = 'closed';
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.pendingTimer = null;
    const decision = closeDecision(error, !!this.auth?.state.creds.me);
    const closed = () =>
      this.emit('connection', {
        state: 'closed',
        reason: decision.reason,
        loggedOut: decision.loggedOut,
        willReconnect: decision.reconnect !== 'never',
      });
    if (decision.reconnect === 'never') {
      this.stopped = true;
      if (decision.loggedOut) void this.wipe().finally(closed);
      else closed();
      return;
    }
    // An account that opens and drops at once keeps its growing backoff.
    if (this.openedAt !== null && Date.now() - this.openedAt >= this.options.stableAfterMs) this.attempt = 0;
    this.openedAt = null;
    if (decision.clearVersion) latestVersion = null;
    closed();
    if (decision.reconnect === 'now') {
      void this.openSocket();
      return;
    }
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.openSocket().catch((err) => this.onClose(this.generation, err));
    }, this.backoff());
  }

  /** Exponential backoff with ±30 % jitter. */
  private backoff(): number {
    const base = Math.min(this.options.maxBackoffMs, this.options.backoffMs * 2 ** this.attempt);
    this.attempt++;
    return Math.round(base * (0.7 + Math.random() * 0.6));
  }

  private noteQuota(info: NewChatMessageCapInfo): void {
    const capped = info.capping_status === 'CAPPED';
    if (capped === this.capped) return;
    this.capped = capped;
    this.emit('quota', {
      capped,
      reason: capped ? "Paused: WhatsApp's new-chat limit was reached for this cycle" : null,
    });
  }

  private noteLastMessage(m: WAMessage): void {
    const chatId = m.key.remoteJid;
    if (!chatId?.endsWith('@g.us') || !m.messageTimestamp) return;
    // Deletions and edits (protocol), reactions and stubs (joins, subject changes) are not messages of the chat.
    const content = normalizeMessageContent(m.message);
    if (m.messageStubType || !content || content.protocolMessage || content.reactionMessage) return;
    const timestamp = Number(m.messageTimestamp);
    const previous = this.lastMessages.get(chatId);
    if (previous && previous.timestamp > timestamp) return;
    const senderJid = m.key.fromMe
      ? (this.sock?.user?.id ?? '')
      : ((m.key as { participantAlt?: string }).participantAlt ?? m.key.participant ?? '');
    const last: IncomingLastMessage = {
      chatId,
      sender: digitsOfJid(senderJid) ?? senderJid,
      timestamp,
      body: messageBody(content),
    };
    this.lastMessages.set(chatId, last);
    this.emit('last-message', last);
  }

  private dropSocket(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.pendingTimer = null;
    for (const timer of this.groupRefetches.values()) clearTimeout(timer);
    this.groupRefetches.clear();
    this.changedMembers.clear();
    const sock = this.sock;
    this.sock = null;
    this.generation++;
    if (sock) detach(sock);
  }

  private async wipe(): Promise<void> {
    this.auth = null;
    this.keyStore = null;
    this.onWhatsAppCache.clear();
    await this.deps.auth.wipe();
  }
}
