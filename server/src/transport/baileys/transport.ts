import { EventEmitter } from 'node:events';
import type { WAMessage } from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import {
  type GroupInfo,
  type GroupLookup,
  type OutgoingMessage,
  type PairingCode,
  SendError,
  type SendOptions,
  type SendResult,
  type StatusPost,
  type StatusResult,
  type Transport,
  type TransportAccount,
  type TransportChannels,
  type TransportEventMap,
  type TransportState,
} from '../types.ts';
import { ServerAcks } from './acks.ts';
import { BaileysChannels } from './channels.ts';
import { ChatTimers } from './chat-timers.ts';
import { ChatEvents } from './chats.ts';
import { DeviceLists } from './device-lists.ts';
import { SocketEvents } from './events.ts';
import { FreshGroups } from './fresh-groups.ts';
import { createGroupThrough } from './group-create.ts';
import { InviteCodes } from './invite-codes.ts';
import { HeldLidTexts } from './lid-texts.ts';
import { SocketLifecycle } from './lifecycle.ts';
import { DEVICE_LIST_TTL_MS, type LookupBatches, LookupCaches } from './lookups.ts';
import { toGroupInfo } from './mapping.ts';
import { PreparedMedia } from './media.ts';
import { Outgoing } from './outgoing.ts';
import { readPollVote } from './poll-votes.ts';
import { PrivacyTokens } from './privacy-tokens.ts';
import { BAILEYS_PROVIDER } from './provider.ts';
import { type ProxySettings, proxiedFetchOptions } from './proxy.ts';
import { RestrictionTracker } from './restrictions.ts';
import type { BaileysSocket, BaileysStorage, SocketMaker, VersionSource, WaVersion } from './socket.ts';
import { StoredMappings } from './stored-mappings.ts';

export type BaileysOptions = {
  /** Where the credentials, keys and sent-message copies are kept (socket.ts BaileysStorage). */
  storage: BaileysStorage;
  /** The account's cached groups (Baileys' `cachedGroupMetadata`, the announce check before a send). */
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
  /** The account's proxy (proxy.ts). */
  proxy?: ProxySettings;
  /** Where the latest WhatsApp Web version comes from (tests replace it). */
  versions?: VersionSource;
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

/**
 * One WhatsApp account through Baileys: the socket lifecycle (lifecycle.ts), what its sockets
 * report (events.ts), what it sends (outgoing.ts), the restrictions WhatsApp puts on it
 * (restrictions.ts), what it looked up (lookups.ts) and the events of its chats (chats.ts),
 * composed into the Transport the engine and the account runner use.
 */
export class BaileysTransport extends EventEmitter<TransportEventMap> implements Transport {
  readonly accountId: string;
  readonly capabilities = BAILEYS_PROVIDER.capabilities;
  private readonly lifecycle: SocketLifecycle;
  /** The number↔LID mappings rc14 stored in the lifecycle's keys. */
  private readonly mappings = new StoredMappings(() => this.lifecycle.keys);
  private readonly restrictions: RestrictionTracker;
  private readonly caches: LookupCaches;
  private readonly chats: ChatEvents;
  private readonly lidTexts: HeldLidTexts;
  private readonly groups: FreshGroups;
  private readonly events: SocketEvents;
  private readonly outgoing: Outgoing;
  /** The server's ack of each message sent (acks.ts). */
  private readonly acks = new ServerAcks();
  /** The chats whose contact gave the account its privacy token (privacy-tokens.ts). */
  private readonly tokens: PrivacyTokens;
  private readonly phoneDigits: string;
  private readonly invites: InviteCodes;
  /** Channels (newsletters) through rc14's Socket/newsletter.js. */
  readonly channels: TransportChannels = new BaileysChannels(() => this.requireOpen());

  constructor(account: TransportAccount, deps: BaileysOptions) {
    super();
    this.accountId = account.accountId;
    this.phoneDigits = account.phoneNumber.replace(/\D/g, '');
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
      join: (addresses) => this.emit('same-person', addresses),
      log: deps.log.child({ accountId: this.accountId }),
    });
    this.caches = new LookupCaches(
      deps.onWhatsAppTtlMs ?? { found: 24 * 3_600_000, missing: 3_600_000 },
      deps.storage.numbers,
      deps.lookupBatches ?? { size: 50, spacingMs: 3000 },
      {
        answered: (sock, jids) => this.lidTexts.resolveBatch(sock, jids),
        // Why earlier sends may never arrive: the engine keeps it on their recipients.
        missing: (chatIds) => this.emit('undelivered-cause', { cause: 'not-on-whatsapp', chatIds }),
        retriesGivenUp: (messageId) =>
          this.emit('undelivered-cause', { cause: 'decrypt-gave-up', messageIds: [messageId] }),
      },
      new DeviceLists({
        auth: deps.storage.auth,
        ttlMs: DEVICE_LIST_TTL_MS,
        lidOf: (pn) => this.mappings.storedLid(pn),
        pnOf: (lid) => this.mappings.storedPn(lid),
        log: deps.log.child({ accountId: this.accountId }),
      }),
    );
    this.restrictions = new RestrictionTracker(
      (q) => this.emit('quota', q),
      deps.rateLimitPauseMs ?? 60_000,
      deps.restrictionRetryMs,
      deps.storage.restrictionSteps,
    );
    this.tokens = new PrivacyTokens(
      deps.storage.privacyTokens,
      deps.log.child({ accountId: this.accountId }),
    );
    const storage: BaileysStorage = {
      ...deps.storage,
      sentCopy: async (id) => this.outgoing.copy(id) ?? deps.storage.sentCopy(id),
    };
    this.lifecycle = new SocketLifecycle(this, {
      accountId: this.accountId,
      storage,
      groups: (jid) => this.groups.lookup(jid),
      caches: this.caches,
      log: deps.log,
      ...(deps.makeSocket ? { makeSocket: deps.makeSocket } : {}),
      ...(deps.version ? { version: deps.version } : {}),
      ...(deps.waWebSocketUrl ? { waWebSocketUrl: deps.waWebSocketUrl } : {}),
      ...(deps.proxy ? { proxy: deps.proxy } : {}),
      ...(deps.versions ? { versions: deps.versions } : {}),
      backoffMs: deps.backoffMs ?? 2000,
      maxBackoffMs: deps.maxBackoffMs ?? 5 * 60_000,
      stableAfterMs: deps.stableAfterMs ?? 60_000,
      pendingNotificationsWaitMs: deps.pendingNotificationsWaitMs ?? 30_000,
      loginSpacingMs: deps.loginSpacingMs ?? 500,
      listen: (sock, generation) => {
        this.events.listen(sock, generation);
        this.acks.listen(sock);
      },
      opened: (sock, keys) => {
        void sock
          .fetchNewChatMessageCap()
          .then((info) => this.restrictions.noteQuota(info))
          .catch(() => {});
        this.tokens.seed(keys).catch((err) => deps.log.warn({ err }, 'could not read the privacy tokens'));
      },
      keysWritten: (keys, data) => this.tokens.written(keys, data),
      dropped: () => {
        this.chats.reset();
        this.acks.closed();
      },
      wiped: () => this.caches.clear(),
    });
    const sentPolls = deps.storage.sentPolls;
    this.chats = new ChatEvents(this, {
      accountId: this.accountId,
      groups: deps.groups,
      log: deps.log,
      groupRefetchDelayMs: deps.groupRefetchDelayMs ?? 30_000,
      holdLidText: (lid, messageId, text) => this.lidTexts.hold(lid, messageId, text),
      ...(sentPolls
        ? {
            readVote: (m: WAMessage) =>
              readPollVote(m.message?.pollUpdateMessage ?? {}, m.key, {
                me: () => this.lifecycle.me,
                lidOf: (pn) => this.mappings.storedLid(pn),
                polls: sentPolls,
              }),
          }
        : {}),
      current: () => ({ sock: this.lifecycle.sock, generation: this.lifecycle.generation }),
    });
    const parts = {
      lifecycle: this.lifecycle,
      mappings: this.mappings,
      restrictions: this.restrictions,
      chats: this.chats,
      lidTexts: this.lidTexts,
      timers: new ChatTimers({
        auth: deps.storage.auth,
        pnOf: (lid) => this.mappings.storedPn(lid),
        lidOf: (pn) => this.mappings.storedLid(pn),
        log: deps.log.child({ accountId: this.accountId }),
      }),
    };
    this.events = new SocketEvents(this, {
      accountId: this.accountId,
      log: deps.log,
      ...parts,
      ownsOutcome: (id) => this.acks.owns(id),
      ...(deps.proxy ? { fetchOptions: proxiedFetchOptions(deps.proxy) } : {}),
    });
    this.outgoing = new Outgoing({
      ...parts,
      requireOpen: () => this.requireOpen(),
      acks: this.acks,
      caches: this.caches,
      groups: this.groups,
      media: new PreparedMedia(deps.log, deps.mediaUploadTimeoutMs ?? 60_000),
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

  /** A new group with its first members (group-create.ts). */
  createGroup(subject: string, participants: string[]): Promise<GroupInfo> {
    return createGroupThrough(this.requireOpen(), subject, participants);
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

  /** A message to a chat, group or channel (outgoing.ts). */
  send(chatId: string, message: OutgoingMessage, options?: SendOptions): Promise<SendResult> {
    return this.outgoing.send(chatId, message, options);
  }

  /** One Status to `audience` (outgoing.ts, status.ts); refused as a send is. */
  postStatus(post: StatusPost, audience: string[], options?: SendOptions): Promise<StatusResult> {
    return this.outgoing.postStatus(post, audience, options);
  }

  /**
   * Shows "typing…" in the chat or stops it (rc14 lib/Socket/chats.js sendPresenceUpdate: a
   * chatstate node). A person's client is online while it types: before the first "typing…" of a
   * connection the account shows itself `available` (a `<presence type="available" name>` node,
   * which rc14 sends only once it knows the account's push name, as whatsmeow presence.go
   * SendPresence needs it; the socket is opened with markOnlineOnConnect off, socket.ts).
   */
  async presence(chatId: string, state: 'composing' | 'paused'): Promise<void> {
    const sock = this.requireOpen();
    if (state === 'composing' && this.availableOn !== this.lifecycle.generation) {
      await sock.sendPresenceUpdate('available');
      this.availableOn = this.lifecycle.generation;
    }
    await sock.sendPresenceUpdate(state, chatId);
  }

  /** The socket generation on which the account showed itself available (presence). */
  private availableOn: number | null = null;

  private requireOpen(): BaileysSocket {
    const sock = this.lifecycle.requireOpen();
    if (!sock) throw new SendError('not-connected', 'Session is not connected');
    return sock;
  }
}
