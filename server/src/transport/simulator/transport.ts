import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthStore } from '../auth-store.ts';
import {
  type GroupInfo,
  type MediaKind,
  type OutgoingMessage,
  type PairingCode,
  SendError,
  type SendResult,
  type SimulatedNetwork,
  type Transport,
  type TransportEventMap,
  type TransportSession,
  type TransportState,
} from '../types.ts';
import {
  randomPairingString,
  readsMessages,
  type SimulatedGroup,
  simulatedGroups,
  simulatedOwnJid,
  simulatedOwnLid,
} from './network.ts';

/**
 * A message id in WhatsApp Web's shape (3EB0 and 16 hex digits), from a UUID: Node draws those
 * from a pooled buffer, where 8 fresh random bytes cost a system call per message.
 */
const simulatedMessageId = () => `3EB0${crypto.randomUUID().replace(/-/g, '').slice(-16).toUpperCase()}`;
/** What the simulator records for every message it accepted (the outbox). */
export type SimulatedMessage = {
  sessionId: string;
  messageId: string;
  chatId: string;
  type: 'text' | 'media' | 'poll';
  text: string | null;
  caption: string | null;
  /** The file's true type, and how it went (image, video, audio, document). */
  mime: string | null;
  mediaAs: MediaKind | null;
  fileName: string | null;
  size: number | null;
  poll: { name: string; options: string[]; allowMultipleAnswers: boolean } | null;
  sentAt: string;
};

export type SimulatorOptions = {
  auth: AuthStore;
  log: FastifyBaseLogger;
  linkAfterMs: number;
  groups: number;
  sendLatencyMs: number;
  outboxFile: string | undefined;
};

/** Timings of the simulated network. */
export const SIMULATOR_TIMINGS = {
  qrRenewMs: 20_000,
  /** A linked account reconnecting from its stored credentials. */
  reconnectMs: 300,
  /** After a simulated connection loss. */
  reconnectAfterLossMs: 1000,
  deliveredMs: 1000,
  /** How long a pairing code works (as long as a Baileys linking attempt: baileys/transport.ts LINKING_ATTEMPT_MS). */
  pairingCodeMs: 160_000,
  readMs: 5000,
};

const CREDS_KEY = 'creds';

/**
 * Numbers starting with these digits (country code 999 is unassigned) answer error 463, the
 * account restriction that pauses a session's queue: tests and demos produce it on demand.
 */
export const RESTRICTED_PREFIX = '999463';
export const SIMULATED_463_REASON =
  'Paused: WhatsApp restricted this account from starting new chats (error 463)';

/**
 * The simulated network for one account. Credentials live in the same `wa_auth_state` table
 * as Baileys', so a restarted or another node reconnects a linked account without a new QR.
 */
export class SimulatorTransport
  extends EventEmitter<TransportEventMap>
  implements Transport, SimulatedNetwork
{
  readonly sessionId: string;
  private readonly phone: string;
  private current: TransportState = 'closed';
  private timers = new Set<NodeJS.Timeout>();
  private qrTimer: NodeJS.Timeout | null = null;
  private linkTimer: NodeJS.Timeout | null = null;
  private groupsCache: SimulatedGroup[] | null = null;
  /** Bumped on every (re)connect and close, so late timers of an old connection do nothing. */
  private generation = 0;
  /** The pairing code of the current connection (one per connection, as with Baileys). */
  private pairing: { generation: number; code: PairingCode } | null = null;

  constructor(
    session: TransportSession,
    private readonly options: SimulatorOptions,
  ) {
    super();
    this.sessionId = session.sessionId;
    this.phone = session.phoneNumber.replace(/\D/g, '');
  }

  get state(): TransportState {
    return this.current;
  }

  /** The simulator takes the orders of its API routes itself. */
  get simulated(): SimulatedNetwork {
    return this;
  }

  async connect(): Promise<void> {
    const generation = ++this.generation;
    this.clearTimers();
    this.setState('connecting');
    this.emit('connection', { state: 'connecting' });
    const creds = await this.options.auth.read(CREDS_KEY);
    if (generation !== this.generation) return;
    if (creds) {
      this.later(SIMULATOR_TIMINGS.reconnectMs, () => this.open(generation));
      return;
    }
    this.showQr(generation);
    this.qrTimer = setInterval(() => this.showQr(generation), SIMULATOR_TIMINGS.qrRenewMs);
  }

  async close(): Promise<void> {
    this.generation++;
    this.clearTimers();
    if (this.current === 'closed') return;
    this.setState('closed');
    this.emit('connection', {
      state: 'closed',
      reason: 'Connection closed',
      loggedOut: false,
      willReconnect: false,
    });
  }

  async logout(): Promise<void> {
    await this.options.auth.wipe();
    this.generation++;
    this.clearTimers();
    this.setState('closed');
    this.emit('connection', {
      state: 'closed',
      reason: 'Logged out',
      loggedOut: true,
      willReconnect: false,
    });
  }

  /**
   * A code shaped like WhatsApp's (8 characters of rc14's Crockford alphabet), one per connection.
   * The account links `linkAfterMs` after the first code was served (the API reports it as it
   * reports the first QR served), or at once through the simulator's link route.
   */
  async requestPairingCode(): Promise<PairingCode> {
    if (this.current !== 'qr') throw new Error('No linking is under way');
    if (this.pairing?.generation === this.generation) return this.pairing.code;
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTVWXYZ';
    const code = [...crypto.randomBytes(8)].map((b) => alphabet[b % 32]).join('');
    const pairing = { code, expiresAt: new Date(Date.now() + SIMULATOR_TIMINGS.pairingCodeMs) };
    this.pairing = { generation: this.generation, code: pairing };
    return pairing;
  }

  /** The API served the first QR of this cycle at `at`: the account links `linkAfterMs` later. */
  qrServed(at: Date): void {
    if (this.current !== 'qr' || this.linkTimer) return;
    const generation = this.generation;
    const delay = Math.max(0, at.getTime() + this.options.linkAfterMs - Date.now());
    this.linkTimer = this.later(delay, () => void this.link(generation));
  }

  /** The user scans the QR now. */
  async linkNow(): Promise<boolean> {
    if (this.current !== 'qr') return false;
    await this.link(this.generation);
    return true;
  }

  /** The connection drops (network loss); the transport reconnects by itself. */
  dropConnection(): boolean {
    if (this.current !== 'open') return false;
    const generation = ++this.generation;
    this.clearTimers();
    this.setState('closed');
    this.emit('connection', {
      state: 'closed',
      reason: 'Connection lost',
      loggedOut: false,
      willReconnect: true,
    });
    this.later(SIMULATOR_TIMINGS.reconnectAfterLossMs, () => {
      if (generation === this.generation) void this.connect();
    });
    return true;
  }

  /** The phone removes this linked device: credentials are wiped as with WhatsApp's 401. */
  async unlinkFromPhone(): Promise<boolean> {
    if (this.current === 'closed') return false;
    await this.options.auth.wipe();
    this.generation++;
    this.clearTimers();
    this.setState('closed');
    this.emit('connection', {
      state: 'closed',
      reason: 'Logged out from the phone',
      loggedOut: true,
      willReconnect: false,
    });
    return true;
  }

  /**
   * A person writes to the account: reported as Baileys reports a one-to-one text, under the
   * sender's number. A LID is read through the members of the account's groups (the only LIDs
   * this network knows); an unknown LID is not reported, as with rc14 when it has no mapping.
   */
  receiveText(from: string, text: string): boolean {
    if (this.current !== 'open') return false;
    let digits: string | null = null;
    if (from.endsWith('@lid')) {
      const lid = `${from.split('@')[0]!.split(':')[0]}@lid`;
      for (const g of this.groups()) {
        const member = g.participants.find((p) => p.lid === lid);
        if (member?.phoneNumber) {
          digits = member.phoneNumber;
          break;
        }
      }
      if (!digits)
        this.options.log.info({ sessionId: this.sessionId, from }, 'simulated text from an unknown LID');
    } else {
      digits = from.split('@')[0]!.split(':')[0]!.replace(/\D/g, '') || null;
    }
    if (!digits) return true;
    const messageId = simulatedMessageId();
    this.emit('incoming-text', { from: `${digits}@s.whatsapp.net`, text, messageId });
    return true;
  }

  async fetchGroups(): Promise<GroupInfo[]> {
    this.requireOpen();
    return this.groups().map(({ ownRole: _ownRole, ...group }) => group);
  }

  async inviteCode(groupId: string): Promise<string | null> {
    this.requireOpen();
    const group = this.groups().find((g) => g.id === groupId);
    if (!group?.ownRole) return null;
    return crypto.createHash('sha256').update(`invite:${groupId}`).digest('base64url').slice(0, 22);
  }

  async onWhatsApp(phoneNumbers: string[]): Promise<Map<string, string | null>> {
    this.requireOpen();
    return new Map(
      phoneNumbers.map((p) => {
        const digits = p.replace(/\D/g, '');
        return [p, digits.endsWith('0000') ? null : `${digits}@s.whatsapp.net`];
      }),
    );
  }

  /** The presence updates this account showed, oldest first (the last 1,000): what a contact would have seen. */
  readonly presences: Array<{ chatId: string; state: 'composing' | 'paused'; at: Date }> = [];

  async presence(chatId: string, state: 'composing' | 'paused'): Promise<void> {
    this.requireOpen();
    this.presences.push({ chatId, state, at: new Date() });
    if (this.presences.length > 1000) this.presences.shift();
  }

  async send(chatId: string, message: OutgoingMessage): Promise<SendResult> {
    const generation = this.generation;
    this.requireOpen();
    if (this.options.sendLatencyMs > 0) await new Promise((r) => setTimeout(r, this.options.sendLatencyMs));
    if (generation !== this.generation || this.current !== 'open')
      throw new SendError('not-connected', 'Session is not connected');
    if (chatId.endsWith('@g.us')) {
      const group = this.groups().find((g) => g.id === chatId);
      if (!group) throw new SendError('not-in-group', 'Not a member of this group');
      if (group.announce && !group.ownRole)
        throw new SendError('not-admin', 'Only admins can send messages to this group');
    } else if (chatId.endsWith('@s.whatsapp.net')) {
      const digits = chatId.split('@')[0]!;
      if (digits.endsWith('0000')) throw new SendError('not-on-whatsapp', 'Not on WhatsApp');
      if (digits.startsWith(RESTRICTED_PREFIX)) {
        // As Baileys reports WhatsApp's 463: the quota event, then the refused send.
        this.emit('quota', { capped: true, reason: SIMULATED_463_REASON, until: null });
        throw new SendError('restricted', SIMULATED_463_REASON);
      }
    } else if (!chatId.endsWith('@lid')) {
      throw new SendError('invalid', `Invalid chat id: ${chatId}`);
    }
    if (message.kind === 'poll' && message.options.length < 2)
      throw new SendError('invalid', 'A poll needs at least two options');

    const messageId = simulatedMessageId();
    const record: SimulatedMessage = {
      sessionId: this.sessionId,
      messageId,
      chatId,
      type: message.kind,
      text: message.kind === 'text' ? message.text : null,
      caption: message.kind === 'media' ? message.caption : null,
      mime: message.kind === 'media' ? message.mime : null,
      mediaAs: message.kind === 'media' ? message.as : null,
      fileName: message.kind === 'media' ? message.fileName : null,
      size: message.kind === 'media' ? message.data.length : null,
      poll:
        message.kind === 'poll'
          ? {
              name: message.name,
              options: message.options,
              allowMultipleAnswers: message.allowMultipleAnswers,
            }
          : null,
      sentAt: new Date().toISOString(),
    };
    // Written synchronously so that a reader (a benchmark, a test) sees the line as soon as send returns.
    if (this.options.outboxFile) fs.appendFileSync(this.options.outboxFile, `${JSON.stringify(record)}\n`);

    this.later(SIMULATOR_TIMINGS.deliveredMs, () => {
      if (generation === this.generation)
        this.emit('receipt', { messageId, status: 'delivered', at: new Date() });
    });
    if (readsMessages(chatId)) {
      this.later(SIMULATOR_TIMINGS.readMs, () => {
        if (generation === this.generation)
          this.emit('receipt', { messageId, status: 'read', at: new Date() });
      });
    }
    return { messageId, kept: JSON.stringify(record) };
  }

  private groups(): SimulatedGroup[] {
    this.groupsCache ??= simulatedGroups(this.sessionId, this.phone, this.options.groups);
    return this.groupsCache;
  }

  private showQr(generation: number): void {
    if (generation !== this.generation) return;
    this.setState('qr');
    this.emit('connection', { state: 'qr', qr: randomPairingString() });
  }

  private async link(generation: number): Promise<void> {
    if (generation !== this.generation || this.current !== 'qr') return;
    const me = { id: `${this.phone}:1@s.whatsapp.net`, lid: simulatedOwnLid(this.sessionId) };
    await this.options.auth.write([
      { key: CREDS_KEY, value: JSON.stringify({ me, linkedAt: new Date().toISOString() }) },
    ]);
    if (generation !== this.generation) return;
    this.emit('creds-saved');
    this.open(generation);
  }

  private open(generation: number): void {
    if (generation !== this.generation) return;
    this.clearTimers();
    this.setState('open');
    this.emit('connection', {
      state: 'open',
      jid: simulatedOwnJid(this.phone),
      lid: simulatedOwnLid(this.sessionId),
    });
  }

  private requireOpen(): void {
    if (this.current !== 'open') throw new SendError('not-connected', 'Session is not connected');
  }

  private setState(state: TransportState): void {
    this.current = state;
  }

  private later(ms: number, fn: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      try {
        fn();
      } catch (err) {
        this.options.log.error({ err, sessionId: this.sessionId }, 'simulator timer failed');
      }
    }, ms);
    this.timers.add(timer);
    return timer;
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
