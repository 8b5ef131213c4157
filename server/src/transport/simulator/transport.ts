import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  bareJid,
  CHANNEL_TEXTS,
  chatIdOfPhone,
  FAILURE_TEXTS,
  isChannelJid,
  isGroupJid,
  isLidJid,
  isPhoneJid,
  jidUser,
} from '@wa/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthStore } from '../auth-store.ts';
import {
  type GroupInfo,
  type OutgoingMessage,
  type PairingCode,
  SendError,
  type SendResult,
  type SimulatedNetwork,
  type StatusPost,
  type Transport,
  type TransportChannels,
  type TransportEventMap,
  type TransportSession,
  type TransportState,
} from '../types.ts';
import { SimulatedChannels } from './channels.ts';
import {
  randomPairingString,
  readsMessages,
  type SimulatedGroup,
  simulatedGroups,
  simulatedOwnJid,
  simulatedOwnLid,
} from './network.ts';
import { checkSimulatedNumber, confirmsDelivery, SIMULATED_463_REASON } from './numbers.ts';
import { appendToOutbox, outboxRecord, simulatedMessageId } from './outbox.ts';
import { simulatedStatus, statusReceipts } from './status.ts';

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
  private readonly channelBook: SimulatedChannels;

  constructor(
    session: TransportSession,
    private readonly options: SimulatorOptions,
  ) {
    super();
    this.sessionId = session.sessionId;
    this.phone = session.phoneNumber.replace(/\D/g, '');
    this.channelBook = new SimulatedChannels(options.auth, session.sessionId);
  }

  /** Channels of the simulated network (channels.ts); each call needs the connection, as WhatsApp's does. */
  get channels(): TransportChannels {
    const book = this.channelBook;
    const open = <T>(call: () => Promise<T>) => {
      this.requireOpen();
      return call();
    };
    return {
      create: async (name, description) => open(() => book.create(name, description)),
      byId: async (id) => open(() => book.byId(id)),
      byInvite: async (code) => open(() => book.byInvite(code)),
    };
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
    await this.loggedOut('Logged out');
  }

  /** The credentials are wiped and the connection closes for good (WhatsApp's 401). */
  private async loggedOut(reason: string): Promise<void> {
    await this.options.auth.wipe();
    this.generation++;
    this.clearTimers();
    this.setState('closed');
    this.emit('connection', { state: 'closed', reason, loggedOut: true, willReconnect: false });
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
    await this.loggedOut('Logged out from the phone');
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
    if (isLidJid(from)) {
      const lid = bareJid(from) ?? from;
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
      digits = jidUser(from).replace(/\D/g, '') || null;
    }
    if (!digits) return true;
    const messageId = simulatedMessageId();
    this.emit('incoming-text', { from: chatIdOfPhone(digits), text, messageId });
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
        return [p, digits.endsWith('0000') ? null : chatIdOfPhone(digits)];
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
    const generation = await this.afterLatency();
    if (isGroupJid(chatId)) {
      const group = this.groups().find((g) => g.id === chatId);
      if (!group) throw new SendError('not-in-group', FAILURE_TEXTS.notInGroup);
      if (group.announce && !group.ownRole) throw new SendError('not-admin', FAILURE_TEXTS.notAdmin);
    } else if (isPhoneJid(chatId)) {
      checkSimulatedNumber(jidUser(chatId), () =>
        this.emit('quota', { capped: true, reason: SIMULATED_463_REASON, until: null }),
      );
    } else if (isChannelJid(chatId)) {
      // WhatsApp refuses a post from an account that is no admin of the channel (error ack 403).
      if (!(await this.channelBook.mayPost(chatId))) throw new SendError('not-admin', CHANNEL_TEXTS.notAdmin);
    } else if (!isLidJid(chatId)) {
      throw new SendError('invalid', `Invalid chat id: ${chatId}`);
    }
    // Templates are a Cloud API feature (issue 30); acceptance never routes one to a linked phone.
    if (message.kind === 'template')
      throw new SendError('invalid', 'Templates are sent through a Cloud API account');
    if (message.kind === 'poll' && message.options.length < 2)
      throw new SendError('invalid', 'A poll needs at least two options');

    const messageId = simulatedMessageId();
    const record = outboxRecord(this.sessionId, messageId, chatId, message);
    if (this.options.outboxFile) appendToOutbox(this.options.outboxFile, record);

    // A number ending 0001 never confirms delivery (numbers.ts); a channel's author gets no receipts.
    if (!confirmsDelivery(chatId) || isChannelJid(chatId)) return { messageId, kept: record };
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
    return { messageId, kept: record };
  }

  /** Waits the send latency; throws when the connection is not (or no longer) open. Its generation. */
  private async afterLatency(): Promise<number> {
    const generation = this.generation;
    this.requireOpen();
    if (this.options.sendLatencyMs > 0) await new Promise((r) => setTimeout(r, this.options.sendLatencyMs));
    if (generation !== this.generation || this.current !== 'open')
      throw new SendError('not-connected', 'Session is not connected');
    return generation;
  }

  /** A Status to `audience`: one message id, then each viewer's receipts (status.ts). */
  async postStatus(post: StatusPost, audience: string[]): Promise<SendResult> {
    const generation = await this.afterLatency();
    const messageId = simulatedMessageId();
    const record = simulatedStatus(this.sessionId, messageId, post, audience);
    if (this.options.outboxFile) appendToOutbox(this.options.outboxFile, JSON.stringify(record));
    const { delivered, viewed } = statusReceipts(messageId, audience);
    const emit = (receipts: typeof delivered) => () => {
      if (generation === this.generation) for (const r of receipts) this.emit('receipt', r);
    };
    this.later(SIMULATOR_TIMINGS.deliveredMs, emit(delivered));
    this.later(SIMULATOR_TIMINGS.readMs, emit(viewed));
    return { messageId };
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
