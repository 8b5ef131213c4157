import type { EventEmitter } from 'node:events';
import {
  type ConnectionState,
  makeCacheableSignalKeyStore,
  makeWASocket,
  type SignalDataSet,
  type SignalKeyStore,
} from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import type { GroupLookup, PairingCode, TransportEventMap, TransportState } from '../types.ts';
import { type DbAuthState, loadDbAuthState } from './auth-state.ts';
import { closeDecision } from './close-policy.ts';
import { writeLateKeysThrough } from './late-key-writes.ts';
import type { LookupCaches } from './lookups.ts';
import { type ProxySettings, proxyCloseReason } from './proxy.ts';
import { shareAsyncLocalStorage } from './shared-async-context.ts';
import {
  type BaileysSocket,
  type BaileysStorage,
  detach,
  LATEST_WA_WEB_VERSION,
  loginSlot,
  type SocketMaker,
  socketConfig,
  type VersionSource,
  type WaVersion,
} from './socket.ts';

type Emitter = Pick<EventEmitter<TransportEventMap>, 'emit'>;

/**
 * Linked means WhatsApp gave the device its identity (`account`, from pair-success) or accepted
 * the pairing code (`registered`, companion_finish). `me` alone is not: requestPairingCode sets it
 * before the phone did anything (Socket/socket.js).
 */
export const isLinked = (creds: { account?: unknown; registered?: boolean } | undefined) =>
  !!creds?.account || !!creds?.registered;

export type LifecycleDeps = {
  accountId: string;
  storage: BaileysStorage;
  groups: GroupLookup;
  caches: LookupCaches;
  log: FastifyBaseLogger;
  makeSocket?: SocketMaker;
  version?: WaVersion;
  waWebSocketUrl?: string;
  /** The account's proxy (proxy.ts): every socket goes through it, never direct. */
  proxy?: ProxySettings;
  /** Where the socket's version comes from (socket.ts LATEST_WA_WEB_VERSION unless a test gives one). */
  versions?: VersionSource;
  backoffMs: number;
  maxBackoffMs: number;
  stableAfterMs: number;
  pendingNotificationsWaitMs: number;
  /** Logins started by `connect` are this far apart in the process, on average (socket.ts loginSlot). */
  loginSpacingMs: number;
  /** The caller's handlers for a new socket's other events. */
  listen(sock: BaileysSocket, generation: number): void;
  /** The socket may send (open and past its offline notifications). */
  opened(sock: BaileysSocket, keys: SignalKeyStore): void;
  /** rc14 wrote Signal keys (privacy-tokens.ts reads its `tctoken` and `lid-mapping` ones). */
  keysWritten(keys: SignalKeyStore, data: SignalDataSet): void;
  /** The socket is gone (closed, replaced or dropped). */
  dropped(): void;
  /** The credentials were wiped (logout, 401). */
  wiped(): void;
};

/**
 * How long a linking attempt lasts from its first QR: rc14 shows the first of WhatsApp's refs for
 * 60 s and each next one for 20 s, then ends the socket ('QR refs attempts ended',
 * Socket/socket.js CB:iq,type:set,pair-device). WhatsApp sends six refs (the count the emulator
 * copies; not promised by WhatsApp): a pairing code works as long as its socket waits.
 */
export const LINKING_ATTEMPT_MS = 60_000 + 5 * 20_000;

/**
 * One account's sockets, one after the other: a socket is single-use, every reconnect builds a
 * new one. Applies the close-code policy (close-policy.ts) with backoff, and reports the
 * connection's state. Auth state lives in the storage it is given (never in files).
 */
export class SocketLifecycle {
  private current: TransportState = 'closed';
  private socket: BaileysSocket | null = null;
  private auth: DbAuthState | null = null;
  /** One cache over the stored keys for the account's lifetime, shared by its successive sockets. */
  private keyStore: SignalKeyStore | null = null;
  /** Bumped for every socket, so events of an old socket are ignored. */
  private gen = 0;
  private stopped = true;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  /** When the current socket opened; the backoff restarts only after it stayed up. */
  private openedAt: number | null = null;
  /** Opens the socket for sending if the offline notifications never come. */
  private pendingTimer: NodeJS.Timeout | null = null;
  /** The socket generation whose offline notifications have arrived (they may precede 'open'). */
  private pendingSeen = -1;
  /** 440s in a row since the connection last stayed up (close-policy.ts MAX_REPLACED_IN_A_ROW). */
  private replacedInARow = 0;
  /** The current socket's first QR (once per socket). */
  firstQrAt: { generation: number; at: number } | null = null;
  private pairing: { generation: number; code: Promise<PairingCode> } | null = null;
  /** Saves of the credentials, one after the other, so an older snapshot never lands last. */
  private credsSaving: Promise<void> = Promise.resolve();
  private readonly makeSocket: SocketMaker;

  constructor(
    private readonly out: Emitter,
    private readonly deps: LifecycleDeps,
  ) {
    this.makeSocket =
      deps.makeSocket ??
      ((config) => {
        shareAsyncLocalStorage();
        const sock = makeWASocket(config);
        writeLateKeysThrough(sock.authState.keys);
        return sock;
      });
  }

  get state(): TransportState {
    return this.current;
  }

  /**
   * The pairing code of the current socket: rc14's requestPairingCode (Socket/socket.js) asked
   * once, after the socket's first QR (WhatsApp has registered the companion by then), with the
   * account's number; it sets `creds.me` and sends companion_hello. Later QR renewals of the same
   * socket keep the code.
   */
  requestPairingCode(phoneDigits: string): Promise<PairingCode> {
    const sock = this.socket;
    const generation = this.gen;
    const firstQrAt = this.firstQrAt;
    if (!sock || this.current !== 'qr' || firstQrAt?.generation !== generation)
      return Promise.reject(new Error('No linking is under way'));
    if (this.pairing?.generation === generation) return this.pairing.code;
    const expiresAt = new Date(firstQrAt.at + LINKING_ATTEMPT_MS);
    const code = sock.requestPairingCode(phoneDigits).then((c) => ({ code: c, expiresAt }));
    const pairing = { generation, code };
    this.pairing = pairing;
    // A failed request may be tried again on the same socket.
    code.catch(() => {
      if (this.pairing === pairing) this.pairing = null;
    });
    return code;
  }

  get sock(): BaileysSocket | null {
    return this.socket;
  }

  get generation(): number {
    return this.gen;
  }

  /** The account's own JID and LID, from the socket or the stored credentials. */
  get me(): { id: string; lid: string | null } {
    const me = this.socket?.user ?? this.auth?.state.creds.me;
    return { id: me?.id ?? '', lid: me?.lid ?? this.auth?.state.creds.me?.lid ?? null };
  }

  /** The account's Signal keys as its sockets use them (null before the first socket, after a wipe). */
  get keys(): SignalKeyStore | null {
    return this.keyStore;
  }

  /** `keys`, telling keysWritten of each write that went through. */
  private watched(keys: SignalKeyStore): SignalKeyStore {
    const watched: SignalKeyStore = {
      get: (type, ids) => keys.get(type, ids),
      set: async (data) => {
        await keys.set(data);
        this.deps.keysWritten(watched, data);
      },
      ...(keys.clear ? { clear: () => keys.clear!() } : {}),
    };
    return watched;
  }

  requireOpen(): BaileysSocket | null {
    return this.current === 'open' ? this.socket : null;
  }

  async connect(): Promise<void> {
    this.stopped = false;
    this.attempt = 0;
    this.replacedInARow = 0;
    await loginSlot(this.deps.loginSpacingMs);
    await this.openSocket();
  }

  async close(): Promise<void> {
    const wasOpen = this.current !== 'closed';
    this.stopped = true;
    this.dropSocket();
    if (wasOpen) this.stoppedFor('Connection closed', false);
  }

  /** Closed by the product (close, logout): no reconnect. */
  private stoppedFor(reason: string, loggedOut: boolean): void {
    this.current = 'closed';
    this.out.emit('connection', { state: 'closed', reason, loggedOut, willReconnect: false });
  }

  async logout(): Promise<void> {
    this.stopped = true;
    const sock = this.socket;
    try {
      // Unlinks the device on the phone; needs a live connection.
      if (sock && this.current === 'open') await sock.logout();
    } finally {
      this.dropSocket();
      await this.wipe();
      this.stoppedFor('Logged out', true);
    }
  }

  private async openSocket(): Promise<void> {
    if (this.stopped) return;
    this.dropSocket();
    const generation = ++this.gen;
    this.current = 'connecting';
    this.out.emit('connection', { state: 'connecting' });
    if (!this.auth) {
      this.auth = await loadDbAuthState(this.deps.storage.auth);
      this.keyStore = null;
    }
    // A pairing code was asked for but the phone never finished: `me` is set, so rc14 would log in
    // (Socket/socket.js sends a login node whenever creds.me exists) and WhatsApp would refuse it.
    // The next attempt starts from fresh credentials.
    if (this.auth.state.creds.me && !isLinked(this.auth.state.creds)) {
      await this.wipe();
      if (generation !== this.gen || this.stopped) return;
      this.auth = await loadDbAuthState(this.deps.storage.auth);
      this.keyStore = null;
    }
    if (generation !== this.gen || this.stopped) return;
    const auth = this.auth;
    const version = this.deps.version ?? (await this.versions().latest(this.deps.proxy));
    if (generation !== this.gen || this.stopped || this.auth !== auth) return;
    const logger = this.deps.log.child({ module: 'baileys' }, { level: 'warn' });
    this.keyStore ??= this.watched(makeCacheableSignalKeyStore(auth.state.keys, logger));
    let sock: BaileysSocket;
    try {
      sock = this.makeSocket(
        socketConfig({
          auth,
          keys: this.keyStore,
          version,
          ...(this.deps.waWebSocketUrl ? { waWebSocketUrl: this.deps.waWebSocketUrl } : {}),
          ...(this.deps.proxy ? { proxy: this.deps.proxy } : {}),
          logger,
          storage: this.deps.storage,
          groups: this.deps.groups,
          caches: {
            userDevicesCache: this.deps.caches.devices,
            msgRetryCounterCache: this.deps.caches.retryCounts,
          },
        }),
      );
    } catch (err) {
      this.onClose(generation, err);
      return;
    }
    this.socket = sock;
    sock.ev.on('creds.update', () => {
      this.credsSaving = this.credsSaving.then(async () => {
        // After a wipe (401, logout) a late update must not bring the credentials back.
        if (this.auth !== auth) return;
        try {
          await auth.saveCreds();
          if (isLinked(auth.state.creds)) this.out.emit('creds-saved');
        } catch (err) {
          this.deps.log.error({ err, accountId: this.deps.accountId }, 'could not save credentials');
        }
      });
    });
    sock.ev.on('connection.update', (u) => this.onConnectionUpdate(generation, u));
    this.deps.listen(sock, generation);
  }

  private onConnectionUpdate(generation: number, u: Partial<ConnectionState>): void {
    if (generation !== this.gen || this.stopped) return;
    if (u.qr) {
      if (this.firstQrAt?.generation !== generation) this.firstQrAt = { generation, at: Date.now() };
      this.current = 'qr';
      this.out.emit('connection', { state: 'qr', qr: u.qr });
    }
    // rc14 handles CB:ib,,offline whenever it arrives, also before CB:success has finished its
    // login queries and emitted 'open' (the emulator suite showed that order): remember it.
    if (u.receivedPendingNotifications === true) this.pendingSeen = generation;
    if (u.connection === 'open') {
      this.openedAt = Date.now();
      // Sending waits for the offline notifications: until then rc14 buffers events
      // (Socket/socket.js CB:ib,,offline), so an error ack (463) could merge into the buffer unseen.
      if (this.pendingTimer) clearTimeout(this.pendingTimer);
      this.pendingTimer = setTimeout(() => this.markOpen(generation), this.deps.pendingNotificationsWaitMs);
    }
    if (this.pendingSeen === generation) this.markOpen(generation);
    if (u.connection === 'close') this.onClose(generation, u.lastDisconnect?.error);
  }

  /** The socket is open and past its login: it may send. */
  private markOpen(generation: number): void {
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.pendingTimer = null;
    if (generation !== this.gen || this.stopped || this.current === 'open' || this.openedAt === null) return;
    this.current = 'open';
    this.out.emit('connection', { state: 'open', jid: this.me.id, lid: this.me.lid });
    if (this.socket && this.keyStore) this.deps.opened(this.socket, this.keyStore);
  }

  /** Applies the close-code policy (close-policy.ts) to a closed socket. */
  private onClose(generation: number, error: unknown): void {
    if (generation !== this.gen || this.stopped) return;
    const sock = this.socket;
    this.socket = null;
    if (sock) detach(sock);
    this.deps.dropped();
    this.current = 'closed';
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.pendingTimer = null;
    const stayedUp = this.openedAt !== null && Date.now() - this.openedAt >= this.deps.stableAfterMs;
    if (stayedUp) this.replacedInARow = 0;
    const viaProxy = this.deps.proxy ? proxyCloseReason(error, this.deps.proxy) : null;
    const decision = viaProxy
      ? { reason: viaProxy, loggedOut: false, reconnect: 'backoff' as const }
      : closeDecision(error, isLinked(this.auth?.state.creds), this.replacedInARow);
    if (decision.replaced) this.replacedInARow++;
    const closed = () =>
      this.out.emit('connection', {
        state: 'closed',
        reason: decision.reason,
        loggedOut: decision.loggedOut,
        willReconnect: decision.reconnect !== 'never',
      });
    // A refused version is looked up again by the next socket, also after a restart.
    if (decision.clearVersion) this.versions().forget();
    if (decision.reconnect === 'never') {
      this.stopped = true;
      if (decision.loggedOut) void this.wipe().finally(closed);
      else closed();
      return;
    }
    // An account that opens and drops at once keeps its growing backoff.
    if (stayedUp) this.attempt = 0;
    this.openedAt = null;
    closed();
    if (decision.reconnect === 'now') {
      void this.openSocket();
      return;
    }
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.openSocket().catch((err) => this.onClose(this.gen, err));
    }, this.backoff());
  }

  private versions(): VersionSource {
    return this.deps.versions ?? LATEST_WA_WEB_VERSION;
  }

  /** Exponential backoff with ±30 % jitter. */
  private backoff(): number {
    const base = Math.min(this.deps.maxBackoffMs, this.deps.backoffMs * 2 ** this.attempt);
    this.attempt++;
    return Math.round(base * (0.7 + Math.random() * 0.6));
  }

  private dropSocket(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.pendingTimer = null;
    const sock = this.socket;
    this.socket = null;
    this.gen++;
    if (sock) detach(sock);
    this.deps.dropped();
  }

  private async wipe(): Promise<void> {
    this.auth = null;
    this.keyStore = null;
    this.deps.wiped();
    await this.deps.storage.auth.wipe();
  }
}
