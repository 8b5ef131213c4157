import crypto from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { chatIdOfPhone } from '@wa/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthStore } from '../auth-store.ts';
import { type PairingCode, SendError, type TransportEventMap, type TransportState } from '../types.ts';
import { randomPairingString, simulatedOwnJid, simulatedOwnLid } from './network.ts';

type Emitter = Pick<EventEmitter<TransportEventMap>, 'emit'>;

/** The connection's timings (transport.ts SIMULATOR_TIMINGS), read when each is needed. */
export type ConnectionTimings = {
  qrRenewMs: number;
  reconnectMs: number;
  reconnectAfterLossMs: number;
  pairingCodeMs: number;
};

const CREDS_KEY = 'creds';

/**
 * The simulated account's connection: QR or pairing code, linking, reconnecting from stored
 * credentials, losses and log-outs, reported as Baileys reports them. Credentials live in the
 * same `wa_auth_state` table as Baileys', so a restarted or another node reconnects a linked
 * account without a new QR. Its timers end with the connection they belong to.
 */
export class SimulatedConnection {
  private current: TransportState = 'closed';
  private timers = new Set<NodeJS.Timeout>();
  private qrTimer: NodeJS.Timeout | null = null;
  private linkTimer: NodeJS.Timeout | null = null;
  /** Bumped on every (re)connect and close, so late timers of an old connection do nothing. */
  private currentGeneration = 0;
  /** The pairing code of the current connection (one per connection, as with Baileys). */
  private pairing: { generation: number; code: PairingCode } | null = null;

  constructor(
    private readonly out: Emitter,
    private readonly deps: {
      accountId: string;
      /** The account's number, digits only. */
      phone: string;
      auth: AuthStore;
      log: FastifyBaseLogger;
      linkAfterMs: number;
      timings: ConnectionTimings;
    },
  ) {}

  get state(): TransportState {
    return this.current;
  }

  /** Which connection this is: a later one (or a close) makes it another. */
  get generation(): number {
    return this.currentGeneration;
  }

  async connect(): Promise<void> {
    const generation = ++this.currentGeneration;
    this.clearTimers();
    this.current = 'connecting';
    this.out.emit('connection', { state: 'connecting' });
    const creds = await this.deps.auth.read(CREDS_KEY);
    if (generation !== this.currentGeneration) return;
    if (creds) {
      this.later(this.deps.timings.reconnectMs, () => this.open(generation));
      return;
    }
    this.showQr(generation);
    this.qrTimer = setInterval(() => this.showQr(generation), this.deps.timings.qrRenewMs);
  }

  async close(): Promise<void> {
    this.currentGeneration++;
    this.clearTimers();
    if (this.current === 'closed') return;
    this.closed({ reason: 'Connection closed', loggedOut: false, willReconnect: false });
  }

  /** The credentials are wiped and the connection closes for good (WhatsApp's 401). */
  async loggedOut(reason: string): Promise<void> {
    await this.deps.auth.wipe();
    this.currentGeneration++;
    this.clearTimers();
    this.closed({ reason, loggedOut: true, willReconnect: false });
  }

  /**
   * A code shaped like WhatsApp's (8 characters of rc14's Crockford alphabet), one per connection.
   * The account links `linkAfterMs` after the first code was served (the API reports it as it
   * reports the first QR served), or at once through the simulator's link route.
   */
  async requestPairingCode(): Promise<PairingCode> {
    if (this.current !== 'qr') throw new Error('No linking is under way');
    if (this.pairing?.generation === this.currentGeneration) return this.pairing.code;
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTVWXYZ';
    const code = [...crypto.randomBytes(8)].map((b) => alphabet[b % 32]).join('');
    const pairing = { code, expiresAt: new Date(Date.now() + this.deps.timings.pairingCodeMs) };
    this.pairing = { generation: this.currentGeneration, code: pairing };
    return pairing;
  }

  /** The API served the first QR of this cycle at `at`: the account links `linkAfterMs` later. */
  qrServed(at: Date): void {
    if (this.current !== 'qr' || this.linkTimer) return;
    const generation = this.currentGeneration;
    const delay = Math.max(0, at.getTime() + this.deps.linkAfterMs - Date.now());
    this.linkTimer = this.later(delay, () => void this.link(generation));
  }

  /** The user scans the QR now. */
  async linkNow(): Promise<boolean> {
    if (this.current !== 'qr') return false;
    await this.link(this.currentGeneration);
    return true;
  }

  /** The connection drops (network loss); it reconnects by itself. */
  dropConnection(): boolean {
    if (this.current !== 'open') return false;
    const generation = ++this.currentGeneration;
    this.clearTimers();
    this.closed({ reason: 'Connection lost', loggedOut: false, willReconnect: true });
    this.later(this.deps.timings.reconnectAfterLossMs, () => {
      if (generation === this.currentGeneration) void this.connect();
    });
    return true;
  }

  requireOpen(): void {
    if (this.current !== 'open') throw new SendError('not-connected', 'Session is not connected');
  }

  /** Runs `fn` in `ms` unless the connection's timers are cleared first (a reconnect, a close). */
  later(ms: number, fn: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      try {
        fn();
      } catch (err) {
        this.deps.log.error({ err, accountId: this.deps.accountId }, 'simulator timer failed');
      }
    }, ms);
    this.timers.add(timer);
    return timer;
  }

  private closed(how: { reason: string; loggedOut: boolean; willReconnect: boolean }): void {
    this.current = 'closed';
    this.out.emit('connection', { state: 'closed', ...how });
  }

  private showQr(generation: number): void {
    if (generation !== this.currentGeneration) return;
    this.current = 'qr';
    this.out.emit('connection', { state: 'qr', qr: randomPairingString() });
  }

  private async link(generation: number): Promise<void> {
    if (generation !== this.currentGeneration || this.current !== 'qr') return;
    const me = { id: chatIdOfPhone(`${this.deps.phone}:1`), lid: simulatedOwnLid(this.deps.accountId) };
    await this.deps.auth.write([
      { key: CREDS_KEY, value: JSON.stringify({ me, linkedAt: new Date().toISOString() }) },
    ]);
    if (generation !== this.currentGeneration) return;
    this.out.emit('creds-saved');
    this.open(generation);
  }

  private open(generation: number): void {
    if (generation !== this.currentGeneration) return;
    this.clearTimers();
    this.current = 'open';
    this.out.emit('connection', {
      state: 'open',
      jid: simulatedOwnJid(this.deps.phone),
      lid: simulatedOwnLid(this.deps.accountId),
    });
  }

  private clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.qrTimer) clearInterval(this.qrTimer);
    this.qrTimer = null;
    if (this.linkTimer) clearTimeout(this.linkTimer);
    this.linkTimer = null;
  }
}
