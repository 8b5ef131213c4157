import {
  BufferJSON,
  fetchLatestWaWebVersion,
  type makeWASocket,
  proto,
  type SignalKeyStore,
  type UserFacingSocketConfig,
  type WAMessageKey,
} from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthStore } from '../auth-store.ts';
import type { LidTextStore, NumberStore } from '../number-lookups.ts';
import type { PrivacyTokenStore } from '../privacy-tokens.ts';
import type { RestrictionSteps } from '../restriction-steps.ts';
import type { SentPollLookup } from '../sent-polls.ts';
import type { GroupLookup } from '../types.ts';
import type { DbAuthState } from './auth-state.ts';
import { toGroupMetadata } from './mapping.ts';
import { type ProxySettings, proxiedFetchOptions, proxiedSocketConfig, proxyUrl } from './proxy.ts';

/** The part of a Baileys socket this transport uses; tests drive it with a fake. */
export type BaileysSocket = Pick<
  ReturnType<typeof makeWASocket>,
  | 'ev'
  | 'ws'
  | 'end'
  | 'logout'
  | 'user'
  | 'groupFetchAllParticipating'
  | 'groupCreate'
  | 'groupMetadata'
  | 'groupInviteCode'
  | 'onWhatsApp'
  | 'executeUSyncQuery'
  | 'sendMessage'
  | 'sendPresenceUpdate'
  | 'fetchNewChatMessageCap'
  | 'fetchAccountReachoutTimelock'
  | 'relayMessage'
  | 'waUploadToServer'
  | 'signalRepository'
  | 'requestPairingCode'
  | 'newsletterCreate'
  | 'newsletterMetadata'
>;
export type SocketMaker = (config: UserFacingSocketConfig) => BaileysSocket;

export type WaVersion = [number, number, number];

/**
 * Where the Baileys transport keeps what must outlive a socket and a process (the port it is
 * given; the product's is the database, accounts/transports.ts).
 */
export type BaileysStorage = {
  /** The credentials and Signal keys. */
  auth: AuthStore;
  /**
   * The copy of a message this account sent (SendResult.kept), as BufferJSON text; null when
   * none is kept. rc14 asks for it to answer a retry receipt and to decrypt a poll vote (getMessage).
   */
  sentCopy(messageId: string): Promise<string | null>;
  /** The polls this account sent, to read the votes on them (without: votes come without their options). */
  sentPolls?: SentPollLookup;
  /** WhatsApp's answers about numbers, shared by all nodes (without: kept in memory only). */
  numbers?: NumberStore;
  /** Texts from LIDs no mapping resolves yet (without: only logged). */
  lidTexts?: LidTextStore;
  /** The count of the account's 463s in a row, for every node (without: kept in memory only). */
  restrictionSteps?: RestrictionSteps;
  /** The chats that carry a privacy token, for the engine's claim (without: not kept). */
  privacyTokens?: PrivacyTokenStore;
};

/** How long the latest WhatsApp Web version is looked up before Baileys' bundled one is used. */
const VERSION_FETCH_TIMEOUT_MS = 5000;
/** A looked-up version is reused for an hour (every reconnect needs one). */
const VERSION_REUSE_MS = 60 * 60_000;
/** The versions looked up, by the way they were asked: direct, or through one proxy (its URL). */
const latestVersions = new Map<string, { version: Promise<WaVersion | null>; at: number }>();

/**
 * The latest WhatsApp Web version (Utils/generics.js fetchLatestWaWebVersion), asked through the
 * account's proxy when it has one (its options go to fetch: the proxy's dispatcher), so that a
 * proxied account's lookup never leaves from the server's own address; null when it cannot be
 * read within 5 s: then the socket uses the version bundled with Baileys (Defaults/index.js),
 * which WhatsApp may have stopped accepting (405).
 */
async function fetchLatestVersion(proxy?: ProxySettings): Promise<WaVersion | null> {
  const way = proxy ? proxyUrl(proxy) : 'direct';
  let latest = latestVersions.get(way);
  if (!latest || Date.now() - latest.at > VERSION_REUSE_MS) {
    const version = fetchLatestWaWebVersion({
      signal: AbortSignal.timeout(VERSION_FETCH_TIMEOUT_MS),
      ...(proxy ? proxiedFetchOptions(proxy) : {}),
    }).then(
      (r) => (r.isLatest ? (r.version as WaVersion) : null),
      () => null,
    );
    latest = { version, at: Date.now() };
    latestVersions.set(way, latest);
  }
  return latest.version;
}

/** WhatsApp refused the version (405): the next socket looks it up again. */
function forgetLatestVersion(): void {
  latestVersions.clear();
}

/**
 * Where a socket's WhatsApp Web version comes from: looked up (through the account's proxy when
 * it has one), and forgotten after a 405.
 */
export type VersionSource = { latest(proxy?: ProxySettings): Promise<WaVersion | null>; forget(): void };

/** The product's version source: WhatsApp Web's own page, reused for an hour. */
export const LATEST_WA_WEB_VERSION: VersionSource = {
  latest: fetchLatestVersion,
  forget: forgetLatestVersion,
};

/** When this process's last login started, and the queue of logins waiting for their slot. */
let lastLoginAt = Number.NEGATIVE_INFINITY;
let loginQueue: Promise<void> = Promise.resolve();

/**
 * Waits for this process's next login slot: logins `spacingMs` apart on average (0.5 to 1.5
 * times, jittered), so that a node that starts with many accounts does not log them all in at
 * once (WhatsApp sees a burst of logins from one address). Each gap is counted
 * from when the previous login really started, so a timer that fires late on a busy machine
 * never lets the next login follow it closer than half the spacing. Reconnects keep their own
 * backoff.
 */
export function loginSlot(spacingMs: number): Promise<void> {
  if (spacingMs <= 0) return Promise.resolve();
  const gap = Math.round(spacingMs * (0.5 + Math.random()));
  const turn = loginQueue.then(async () => {
    const wait = lastLoginAt + gap - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastLoginAt = Date.now();
  });
  loginQueue = turn;
  return turn;
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
  'lid-mapping.update',
] as const;

/** Ends a socket and removes our handlers (rc14's socket `end` returns at once when already closed). */
export function detach(sock: BaileysSocket): void {
  // rc14's ev.removeAllListeners(event) takes one event: with undefined it removed nothing.
  for (const event of SOCKET_EVENTS) sock.ev.removeAllListeners(event);
  sock.end(undefined).catch(() => {});
}

/**
 * The history syncs rc14 processes: push names and the small ones; not RECENT or FULL, and not
 * the INITIAL_BOOTSTRAP, which history.ts reads in pieces for its LID ↔ number mappings (rc14
 * inflates it whole). With RECENT refused, rc14 goes Online at once after the
 * offline notifications (Socket/chats.js): accepting it held every event of a first connection in
 * its buffer for up to 20 s waiting for a history notification, so an error 463 on a first send
 * came after the ack wait and the recipient was recorded as sent (found by the emulator suite).
 */
const HISTORY_KEPT = new Set<number | null | undefined>([
  proto.HistorySync.HistorySyncType.PUSH_NAME,
  proto.HistorySync.HistorySyncType.NON_BLOCKING_DATA,
  proto.HistorySync.HistorySyncType.ON_DEMAND,
]);

/** The config of one socket of an account: what it reads from the account's storage and caches. */
export function socketConfig(input: {
  auth: DbAuthState;
  keys: SignalKeyStore;
  version: WaVersion | null;
  waWebSocketUrl?: string;
  proxy?: ProxySettings;
  logger: FastifyBaseLogger;
  storage: BaileysStorage;
  groups: GroupLookup;
  /** The account's caches over its sockets (lookups.ts LookupCaches). */
  caches: Pick<UserFacingSocketConfig, 'userDevicesCache' | 'msgRetryCounterCache'>;
}): UserFacingSocketConfig {
  const { storage, groups, caches } = input;
  return {
    auth: { creds: input.auth.state.creds, keys: input.keys },
    ...(input.version ? { version: input.version } : {}),
    ...(input.waWebSocketUrl ? { waWebSocketUrl: input.waWebSocketUrl } : {}),
    ...(input.proxy ? proxiedSocketConfig(input.proxy) : {}),
    logger: input.logger,
    markOnlineOnConnect: false,
    syncFullHistory: false,
    shouldSyncHistoryMessage: ({ syncType }) => HISTORY_KEPT.has(syncType),
    generateHighQualityLinkPreview: false,
    // Kept by the transport, not by each socket (lookups.ts says why).
    ...caches,
    cachedGroupMetadata: async (jid) => {
      const group = await groups(jid);
      return group ? toGroupMetadata(group) : undefined;
    },
    getMessage: async (key: WAMessageKey) => {
      if (!key.id) return undefined;
      const text = await storage.sentCopy(key.id);
      return text ? proto.Message.fromObject(JSON.parse(text, BufferJSON.reviver)) : undefined;
    },
  };
}
