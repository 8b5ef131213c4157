import { EventEmitter } from 'node:events';
import {
  type AnyMediaMessageContent,
  BufferJSON,
  type ConnectionState,
  fetchLatestWaWebVersion,
  type GroupMetadata,
  generateMessageIDV2,
  generateWAMessageFromContent,
  makeCacheableSignalKeyStore,
  makeWASocket,
  type NewChatMessageCapInfo,
  normalizeMessageContent,
  prepareWAMessageMedia,
  proto,
  type ReachoutTimelockState,
  type SignalKeyStore,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
} from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client.ts';
import type { AuthStore } from '../auth-store.ts';
import { findSentMessage } from '../sent-messages.ts';
import {
  type GroupInfo,
  type GroupLookup,
  type IncomingLastMessage,
  type OutgoingMessage,
  type PairingCode,
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
import { RATE_LIMITED, RESTRICTED_463, sendErrorOf } from './send.ts';

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
  | 'sendPresenceUpdate'
  | 'fetchNewChatMessageCap'
  | 'fetchAccountReachoutTimelock'
  | 'relayMessage'
  | 'waUploadToServer'
  | 'signalRepository'
  | 'requestPairingCode'
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
  /** WA_VERSION: the client version to announce instead of the latest published one. */
  version?: WaVersion;
  /** WA_WS_URL (endpoint.ts): where the socket connects instead of WhatsApp. */
  waWebSocketUrl?: string;
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
  /** The longest a media upload may take (Baileys' own has no limit); SEND_TIMEOUT_MS by default. */
  mediaUploadTimeoutMs?: number;
};

export type WaVersion = [number, number, number];

/**
 * A restriction of new one-to-one chats; `fromTimelock` when WhatsApp reported it active (not only
 * our own sight of a 463).
 */
type Restriction = { reason: string; until: Date | null; fromTimelock?: boolean };

const RESTRICTED_TIMELOCK = 'Paused: WhatsApp restricted this account from starting new chats';

/**
 * How long a linking attempt lasts from its first QR: rc14 shows the first of WhatsApp's refs for
 * 60 s and each next one for 20 s, then ends the socket ('QR refs attempts ended',
 * Socket/socket.js CB:iq,type:set,pair-device). WhatsApp sends six refs (the count the emulator
 * copies; not promised by WhatsApp): a pairing code works as long as its socket waits.
 */
export const LINKING_ATTEMPT_MS = 60_000 + 5 * 20_000;

/**
 * Linked means WhatsApp gave the device its identity (`account`, from pair-success) or accepted
 * the pairing code (`registered`, companion_finish). `me` alone is not: requestPairingCode sets it
 * before the phone did anything (Socket/socket.js).
 */
export const isLinked = (creds: { account?: unknown; registered?: boolean } | undefined) =>
  !!creds?.account || !!creds?.registered;

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

/**
 * The history syncs processed: the initial bootstrap (it carries the LID ↔ phone mappings), push
 * names and the small ones; not RECENT or FULL. With RECENT refused, rc14 goes Online at once
 * after the offline notifications (Socket/chats.js): accepting it held every event of a first
 * connection in its buffer for up to 20 s waiting for a history notification, so an error 463
 * on a first send came after the ack wait and the recipient was recorded as sent (found by the
 * emulator suite).
 */
const HISTORY_KEPT = new Set<number | null | undefined>([
  proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
  proto.HistorySync.HistorySyncType.PUSH_NAME,
  proto.HistorySync.HistorySyncType.NON_BLOCKING_DATA,
  proto.HistorySync.HistorySyncType.ON_DEMAND,
]);

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
  /** WhatsApp's CAPPED new-chat quota, until the cycle's end when it said. */
  private capped: Restriction | null = null;
  /** Error 463 and the reach-out timelock WhatsApp reports with it. */
  private timelock: Restriction | null = null;
  /** The restriction last reported through 'quota' (null: none). */
  private reported: Restriction | null = null;
  /** Message ids whose error status was already reported (rc14 may report one twice: upsert and update). */
  private readonly failedIds = new LRUCache<string, true>({ max: 1000 });
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
  /** The socket generation whose offline notifications have arrived (they may precede 'open'). */
  private pendingSeen = -1;
  /** Group metadata queries waiting for the events to calm down, by group. */
  private readonly groupRefetches = new Map<string, NodeJS.Timeout>();
  /** Until when WhatsApp asked this account to slow down (429 rate-overlimit on a send). */
  private rateLimitedUntil = 0;
  /**
   * Media prepared (encrypted and uploaded) once per file of a job: the engine hands this
   * transport the same file buffer for every recipient of the job (the caption may differ, so it
   * is set per recipient). rc14 caches only `{ url }` media (Utils/messages.js
   * prepareWAMessageMedia), so a Buffer was re-encrypted and re-uploaded per recipient.
   */
  private readonly preparedMedia = new WeakMap<Buffer, Map<string, Promise<proto.IMessage>>>();
  /** The current socket's first QR, and its pairing code once asked for (once per socket). */
  private firstQrAt: { generation: number; at: number } | null = null;
  private pairing: { generation: number; code: Promise<PairingCode> } | null = null;
  private readonly phoneDigits: string;
  /** Saves of the credentials, one after the other, so an older snapshot never lands last. */
  private credsSaving: Promise<void> = Promise.resolve();
  private inviteGate: Promise<void> = Promise.resolve();
  private readonly makeSocket: SocketMaker;
  private readonly options: Required<
    Pick<
      BaileysOptions,
      | 'inviteCodeSpacingMs'
      | 'backoffMs'
      | 'maxBackoffMs'
      | 'stableAfterMs'
      | 'onWhatsAppTtlMs'
      | 'groupRefetchDelayMs'
      | 'rateLimitPauseMs'
      | 'pendingNotificationsWaitMs'
      | 'mediaUploadTimeoutMs'
    >
  >;

  constructor(
    session: TransportSession,
    private readonly deps: BaileysOptions,
  ) {
    super();
    this.sessionId = session.sessionId;
    this.phoneDigits = session.phoneNumber.replace(/\D/g, '');
    this.makeSocket = deps.makeSocket ?? ((config) => makeWASocket(config));
    this.options = {
      inviteCodeSpacingMs: deps.inviteCodeSpacingMs ?? 2000,
      backoffMs: deps.backoffMs ?? 2000,
      maxBackoffMs: deps.maxBackoffMs ?? 5 * 60_000,
      stableAfterMs: deps.stableAfterMs ?? 60_000,
      groupRefetchDelayMs: deps.groupRefetchDelayMs ?? 30_000,
      rateLimitPauseMs: deps.rateLimitPauseMs ?? 60_000,
      pendingNotificationsWaitMs: deps.pendingNotificationsWaitMs ?? 30_000,
      mediaUploadTimeoutMs: deps.mediaUploadTimeoutMs ?? 60_000,
      onWhatsAppTtlMs: deps.onWhatsAppTtlMs ?? { found: 24 * 3_600_000, missing: 3_600_000 },
    };
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

  /**
   * The pairing code of the current socket: rc14's requestPairingCode (Socket/socket.js) asked
   * once, after the socket's first QR (WhatsApp has registered the companion by then), with the
   * session's number; it sets `creds.me` and sends companion_hello. Later QR renewals of the same
   * socket keep the code.
   */
  requestPairingCode(): Promise<PairingCode> {
    const sock = this.sock;
    const generation = this.generation;
    if (!sock || this.current !== 'qr' || this.firstQrAt?.generation !== generation)
      return Promise.reject(new Error('No linking is under way'));
    if (this.pairing?.generation === generation) return this.pairing.code;
    const expiresAt = new Date(this.firstQrAt.at + LINKING_ATTEMPT_MS);
    const code = sock.requestPairingCode(this.phoneDigits).then((c) => ({ code: c, expiresAt }));
    const pairing = { generation, code };
    this.pairing = pairing;
    // A failed request may be tried again on the same socket.
    code.catch(() => {
      if (this.pairing === pairing) this.pairing = null;
    });
    return code;
  }

  async send(chatId: string, message: OutgoingMessage): Promise<SendResult> {
    const sock = this.requireOpen();
    if (Date.now() < this.rateLimitedUntil) throw new SendError('rate-limited', RATE_LIMITED);
    if (chatId.endsWith('@s.whatsapp.net')) {
      const digits = chatId.split('@')[0]!;
      // The lookup is a usync query: WhatsApp's 429 or a cut socket refuse it as they refuse a send.
      const found = (await this.onWhatsApp([digits]).catch((err) => this.refused(err))).get(digits);
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
      sent =
        message.kind === 'media'
          ? await this.relayPrepared(sock, chatId, message)
          : await sock.sendMessage(chatId, toBaileysContent(message));
    } catch (err) {
      this.refused(err);
    }
    const messageId = sent?.key.id;
    if (!sent || !messageId) throw new SendError('unknown', 'WhatsApp did not accept the message');
    // Sent: rc14 sends no ack of the server (SERVER_ACK comes from the phone's receipt), so
    // waiting for one only delayed every send. A later refusal arrives as an error status.
    // Kept (by the engine, with the outcome) for retry requests and to decrypt poll votes (getMessage).
    const kept = sent.message ? JSON.stringify(sent.message, BufferJSON.replacer) : undefined;
    return { messageId, chatId, kept };
  }

  /** A send WhatsApp or the socket refused, as a SendError; a 429 pauses the account's sends. */
  private refused(err: unknown): never {
    const error = sendErrorOf(err);
    if (error.code === 'rate-limited') this.rateLimitedUntil = Date.now() + this.options.rateLimitPauseMs;
    throw error;
  }

  /** Shows "typing…" in the chat or stops it (rc14 lib/Socket/chats.js sendPresenceUpdate: a chatstate node). */
  async presence(chatId: string, state: 'composing' | 'paused'): Promise<void> {
    await this.requireOpen().sendPresenceUpdate(state, chatId);
  }

  /**
   * Sends media prepared once for the message (upload with `mediaUploadTimeoutMs`), as rc14's
   * sendMessage does: generateWAMessageFromContent, then relayMessage (Socket/messages-send.js).
   */
  private async relayPrepared(
    sock: BaileysSocket,
    chatId: string,
    message: Extract<OutgoingMessage, { kind: 'media' }>,
  ): Promise<WAMessage> {
    let forFile = this.preparedMedia.get(message.data);
    if (!forFile) {
      forFile = new Map();
      this.preparedMedia.set(message.data, forFile);
    }
    const key = `${message.as}|${message.mime}|${message.fileName}`;
    let prepared = forFile.get(key);
    if (!prepared) {
      const noCaption = toBaileysContent({ ...message, caption: '' }) as AnyMediaMessageContent;
      prepared = prepareWAMessageMedia(noCaption, {
        upload: sock.waUploadToServer,
        mediaUploadTimeoutMs: this.options.mediaUploadTimeoutMs,
        logger: this.deps.log.child({ module: 'baileys' }, { level: 'warn' }),
      });
      forFile.set(key, prepared);
      // A failed upload is tried again by the next recipient.
      const failed = prepared;
      failed.catch(() => forFile!.get(key) === failed && forFile!.delete(key));
    }
    // A copy per recipient, with its caption: relaying must not change what the next one gets.
    const content = proto.Message.decode(proto.Message.encode(await prepared).finish());
    const inner = content[`${message.as}Message`];
    if (message.caption && inner && 'caption' in inner) inner.caption = message.caption;
    const userJid = sock.user?.id ?? '';
    const full = generateWAMessageFromContent(chatId, content, {
      userJid,
      messageId: generateMessageIDV2(userJid),
    });
    await sock.relayMessage(chatId, full.message!, { messageId: full.key.id! });
    // rc14's sendMessage emits our own message (emitOwnEvents): a group's last message.
    this.noteLastMessage(full);
    return full;
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
    // A pairing code was asked for but the phone never finished: `me` is set, so rc14 would log in
    // (Socket/socket.js sends a login node whenever creds.me exists) and WhatsApp would refuse it.
    // The next attempt starts from fresh credentials.
    if (this.auth.state.creds.me && !isLinked(this.auth.state.creds)) {
      await this.wipe();
      if (generation !== this.generation || this.stopped) return;
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
        ...(this.deps.waWebSocketUrl ? { waWebSocketUrl: this.deps.waWebSocketUrl } : {}),
        logger,
        markOnlineOnConnect: false,
        syncFullHistory: false,
        shouldSyncHistoryMessage: ({ syncType }) => HISTORY_KEPT.has(syncType),
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
          if (isLinked(auth.state.creds)) this.emit('creds-saved');
        } catch (err) {
          this.deps.log.error({ err, sessionId: this.sessionId }, 'could not save credentials');
        }
      });
    });
    ev.on('connection.update', (u) => this.onConnectionUpdate(generation, u));
    ev.on('messages.upsert', ({ messages, type }) => {
      for (const m of messages) {
        // Live messages come as 'notify'; those WhatsApp held while this device was offline as
        // 'append' (Socket/messages-recv.js handleMessage: node.attrs.offline ? 'append' : 'notify').
        if ((type === 'notify' || type === 'append') && !m.key.fromMe) this.noteIncomingText(generation, m);
        // rc14's event buffer merges an update into a buffered upsert of the same message
        // (Utils/event-buffer.js): an error ack then arrives as our own upsert with status ERROR.
        if (m.key.fromMe && m.key.id && m.status === proto.WebMessageInfo.Status.ERROR)
          this.onSendError(generation, m.key.id, m.messageStubParameters?.[0]);
        this.noteLastMessage(m);
      }
    });
    ev.on('messages.update', (updates) => {
      for (const { key, update } of updates) {
        if (!key.id || !key.fromMe) continue;
        if (update.status === proto.WebMessageInfo.Status.ERROR) {
          this.onSendError(generation, key.id, update.messageStubParameters?.[0]);
        } else if (update.status === proto.WebMessageInfo.Status.DELIVERY_ACK) {
          this.emit('receipt', { messageId: key.id, status: 'delivered', at: new Date() });
        } else if (
          update.status === proto.WebMessageInfo.Status.READ ||
          update.status === proto.WebMessageInfo.Status.PLAYED
        ) {
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
      if (this.firstQrAt?.generation !== generation) this.firstQrAt = { generation, at: Date.now() };
      this.current = 'qr';
      this.emit('connection', { state: 'qr', qr: u.qr });
    }
    // rc14 handles CB:ib,,offline whenever it arrives, also before CB:success has finished its
    // login queries and emitted 'open' (the emulator suite showed that order): remember it.
    if (u.receivedPendingNotifications === true) this.pendingSeen = generation;
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
    if (this.pendingSeen === generation) this.markOpen(generation);
    if (u.reachoutTimeLock) this.noteTimelock(u.reachoutTimeLock);
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
    const decision = closeDecision(error, isLinked(this.auth?.state.creds));
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
      this.setTimelock({ reason: RESTRICTED_463, until: null });
      const sock = this.sock;
      if (sock && generation === this.generation)
        // Its answer comes back as connection.update reachoutTimeLock (Socket/socket.js).
        sock
          .fetchAccountReachoutTimelock()
          .catch((err) =>
            this.deps.log.warn({ err, sessionId: this.sessionId }, 'could not read the reach-out timelock'),
          );
      return;
    }
    this.emit('send-failed', {
      messageId,
      code: 'unknown',
      reason: `WhatsApp refused the message (error ${code ?? 'unknown'})`,
    });
  }

  /** connection.update reachoutTimeLock: our query's answer, or WhatsApp's notification (Socket/messages-recv.js). */
  private noteTimelock(state: ReachoutTimelockState): void {
    if (!state.isActive) {
      // Lifts a timelock WhatsApp had reported; a 463 it reports no timelock for stays paused
      // until the user resumes (its account may still be unable to start chats: a missing tctoken).
      if (this.timelock?.fromTimelock) this.setTimelock(null);
      return;
    }
    this.setTimelock({
      reason: this.timelock?.reason ?? RESTRICTED_TIMELOCK,
      until: state.timeEnforcementEnds ? new Date(state.timeEnforcementEnds) : null,
      fromTimelock: true,
    });
  }

  private setTimelock(timelock: Restriction | null): void {
    this.timelock = timelock;
    this.reportRestriction();
  }

  private noteQuota(info: NewChatMessageCapInfo): void {
    if (info.capping_status !== 'CAPPED') {
      this.capped = null;
    } else {
      const end = Number(info.cycle_end_timestamp);
      this.capped = {
        reason: "Paused: WhatsApp's new-chat limit was reached for this cycle",
        until: end > 0 ? new Date(end * 1000) : null,
      };
    }
    this.reportRestriction();
  }

  /** The restriction of new one-to-one chats now: the later-ending of the timelock and the quota. */
  private restriction(): Restriction | null {
    const now = Date.now();
    const live = [this.timelock, this.capped].filter(
      (r): r is Restriction => !!r && (r.until === null || r.until.getTime() > now),
    );
    if (live.length === 0) return null;
    return live.reduce((a, b) =>
      a.until === null || (b.until !== null && a.until.getTime() >= b.until.getTime()) ? a : b,
    );
  }

  /** Reports a change of the restriction; a lift only when this transport had reported one. */
  private reportRestriction(): void {
    const now = this.restriction();
    const before = this.reported;
    if (now?.reason === before?.reason && now?.until?.getTime() === before?.until?.getTime()) return;
    this.reported = now;
    if (now) this.emit('quota', { capped: true, reason: now.reason, until: now.until });
    else this.emit('quota', { capped: false, reason: null, until: null });
  }

  /**
   * A text someone wrote in a one-to-one chat, reported under the sender's phone number. rc14
   * keys a chat addressed by LID with `remoteJid` the LID and `remoteJidAlt` the number when the
   * stanza carried it (Utils/decode-wa-message.js, sender_pn); otherwise its LID mapping store
   * knows it (Signal/lid-mapping.js getPNForLID). A LID with no known number is not reported:
   * its digits are not a phone number.
   */
  private noteIncomingText(generation: number, m: WAMessage): void {
    const chatId = m.key.remoteJid;
    if (!m.key.id || !chatId || !(chatId.endsWith('@s.whatsapp.net') || chatId.endsWith('@lid'))) return;
    const content = normalizeMessageContent(m.message);
    const text = content?.conversation ?? content?.extendedTextMessage?.text;
    if (!text) return;
    const messageId = m.key.id;
    const alt = (m.key as { remoteJidAlt?: string }).remoteJidAlt;
    const report = (pn: string | null | undefined) => {
      const digits = digitsOfJid(pn);
      if (!digits || generation !== this.generation) return;
      this.emit('incoming-text', { from: `${digits}@s.whatsapp.net`, text, messageId });
    };
    if (chatId.endsWith('@s.whatsapp.net') || alt?.endsWith('@s.whatsapp.net')) {
      report(chatId.endsWith('@s.whatsapp.net') ? chatId : alt);
      return;
    }
    const sock = this.sock;
    if (!sock) return;
    sock.signalRepository.lidMapping
      .getPNForLID(chatId)
      .then((pn) => {
        if (pn) report(pn);
        else
          this.deps.log.info(
            { sessionId: this.sessionId, chatId },
            'a message from a LID with no known number',
          );
      })
      .catch((err) => this.deps.log.warn({ err, sessionId: this.sessionId }, 'LID lookup failed'));
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
