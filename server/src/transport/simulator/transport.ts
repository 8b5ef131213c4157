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
import type * as wire from '../types.ts';
import { SendError, type SimulatedNetwork, type Transport } from '../types.ts';
import { SimulatedChannels } from './channels.ts';
import { SimulatedConnection } from './connection.ts';
import { SimulatedNewGroups } from './group-create.ts';
import { readsMessages, type SimulatedGroup, simulatedGroups } from './network.ts';
import { checkSimulatedNumber, confirmsDelivery, SIMULATED_463_REASON } from './numbers.ts';
import { appendToOutbox, outboxRecord, simulatedMessageId } from './outbox.ts';
import { SIMULATOR_PROVIDER } from './provider.ts';
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
  /** How long a pairing code works (as long as a Baileys linking attempt: baileys/lifecycle.ts LINKING_ATTEMPT_MS). */
  pairingCodeMs: 160_000,
  readMs: 5000,
};

/**
 * The simulated network for one account: its connection (connection.ts), its groups and
 * directory (network.ts, numbers.ts), what it sends (outbox.ts, status.ts) and its channels
 * (channels.ts), composed into the Transport the engine and the account runner use.
 */
export class SimulatorTransport
  extends EventEmitter<wire.TransportEventMap>
  implements Transport, SimulatedNetwork
{
  readonly accountId: string;
  readonly capabilities = SIMULATOR_PROVIDER.capabilities;
  private readonly phone: string;
  private readonly connection: SimulatedConnection;
  private groupsCache: SimulatedGroup[] | null = null;
  private readonly channelBook: SimulatedChannels;
  private readonly newGroups: SimulatedNewGroups;

  constructor(
    account: wire.TransportAccount,
    private readonly options: SimulatorOptions,
  ) {
    super();
    this.accountId = account.accountId;
    this.phone = account.phoneNumber.replace(/\D/g, '');
    this.channelBook = new SimulatedChannels(options.auth, account.accountId);
    this.newGroups = new SimulatedNewGroups(options.auth, account.accountId, this.phone);
    this.connection = new SimulatedConnection(this, {
      accountId: this.accountId,
      phone: this.phone,
      auth: options.auth,
      log: options.log,
      linkAfterMs: options.linkAfterMs,
      timings: SIMULATOR_TIMINGS,
    });
  }

  /** Channels of the simulated network (channels.ts); each call needs the connection, as WhatsApp's does. */
  get channels(): wire.TransportChannels {
    const book = this.channelBook;
    const open = <T>(call: () => Promise<T>) => {
      this.connection.requireOpen();
      return call();
    };
    return {
      create: async (name, description) => open(() => book.create(name, description)),
      byId: async (id) => open(() => book.byId(id)),
      byInvite: async (code) => open(() => book.byInvite(code)),
    };
  }

  get state(): wire.TransportState {
    return this.connection.state;
  }

  /** The simulator takes the orders of its API routes itself. */
  get simulated(): SimulatedNetwork {
    return this;
  }

  connect(): Promise<void> {
    return this.connection.connect();
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  logout(): Promise<void> {
    return this.connection.loggedOut('Logged out');
  }

  /** A pairing code of the current connection (connection.ts). */
  requestPairingCode(): Promise<wire.PairingCode> {
    return this.connection.requestPairingCode();
  }

  qrServed(at: Date): void {
    this.connection.qrServed(at);
  }

  linkNow(): Promise<boolean> {
    return this.connection.linkNow();
  }

  dropConnection(): boolean {
    return this.connection.dropConnection();
  }

  /** The phone removes this linked device: credentials are wiped as with WhatsApp's 401. */
  async unlinkFromPhone(): Promise<boolean> {
    if (this.connection.state === 'closed') return false;
    await this.connection.loggedOut('Logged out from the phone');
    return true;
  }

  /**
   * A person writes to the account: reported as the Baileys transport reports a one-to-one text
   * (baileys/chats.ts), under the sender's number when it is known. A LID's number is the one given
   * beside it (`senderPn`, as rc14's `remoteJidAlt`) or read through the members of the account's
   * groups (the only LIDs this network maps); then the LID and the number are reported as one
   * person's. A LID with no known number is reported under the LID.
   */
  receiveText(
    from: string,
    text: string,
    senderPn?: string,
    media?: Parameters<SimulatedNetwork['receiveText']>[3],
  ): boolean {
    if (this.connection.state !== 'open') return false;
    let digits: string | null = null;
    const messageId = simulatedMessageId();
    // A file is reported as baileys/chats.ts reports one (incoming-other, its caption beside it).
    // This network has no media servers: its reference carries the file itself, where rc14's
    // carries the path and key its servers are asked with (baileys/incoming.ts).
    const report = (chatId: string) =>
      media
        ? this.emit('incoming-other', {
            from: chatId,
            text: null,
            messageId,
            type: media.type,
            caption: text,
            media: {
              mime: media.mime,
              fileName: media.fileName ?? null,
              ref: JSON.stringify({ mime: media.mime, data: media.data }),
            },
          })
        : this.emit('incoming-text', { from: chatId, text, messageId });
    if (isLidJid(from)) {
      const lid = bareJid(from) ?? from;
      digits = senderPn ?? null;
      for (const g of digits ? [] : this.groups()) {
        const member = g.participants.find((p) => p.lid === lid);
        if (member?.phoneNumber) {
          digits = member.phoneNumber;
          break;
        }
      }
      if (!digits) {
        report(lid);
        return true;
      }
      this.emit('same-person', [
        { kind: 'lid', value: jidUser(lid) },
        { kind: 'phone', value: digits },
      ]);
    } else {
      digits = jidUser(from).replace(/\D/g, '') || null;
    }
    if (!digits) return true;
    report(chatIdOfPhone(digits));
    return true;
  }

  async fetchGroups(): Promise<wire.GroupInfo[]> {
    this.connection.requireOpen();
    const groups = this.groups();
    for (const made of await this.newGroups.known())
      if (!groups.some((g) => g.id === made.id)) groups.push(made);
    return groups.map(({ ownRole: _ownRole, ...group }) => group);
  }

  /** A new group (group-create.ts), at once among the account's groups. */
  async createGroup(subject: string, participants: string[]): Promise<wire.GroupInfo> {
    this.connection.requireOpen();
    const { ownRole: _ownRole, ...group } = await this.newGroups.create(subject, participants);
    this.groups().push({ ...group, ownRole: 'superadmin' });
    return group;
  }

  async inviteCode(groupId: string): Promise<string | null> {
    this.connection.requireOpen();
    const group = this.groups().find((g) => g.id === groupId);
    if (!group?.ownRole) return null;
    return crypto.createHash('sha256').update(`invite:${groupId}`).digest('base64url').slice(0, 22);
  }

  async onWhatsApp(phoneNumbers: string[]): Promise<Map<string, string | null>> {
    this.connection.requireOpen();
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
    this.connection.requireOpen();
    this.presences.push({ chatId, state, at: new Date() });
    if (this.presences.length > 1000) this.presences.shift();
  }

  async send(
    chatId: string,
    message: wire.OutgoingMessage,
    options: wire.SendOptions = {},
  ): Promise<wire.SendResult> {
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
    // Templates are a Cloud API feature; acceptance never routes one to a linked phone.
    if (message.kind === 'template')
      throw new SendError('invalid', 'Templates are sent through a Cloud API account');
    if (message.kind === 'poll' && message.options.length < 2)
      throw new SendError('invalid', 'A poll needs at least two options');
    await options.beforeRelay?.(chatId);
    if (generation !== this.connection.generation || this.connection.state !== 'open')
      throw new SendError('not-connected', 'Session is not connected');

    const messageId = simulatedMessageId();
    const record = outboxRecord(this.accountId, messageId, chatId, message);
    if (this.options.outboxFile) appendToOutbox(this.options.outboxFile, record);

    // A number ending 0001 never confirms delivery (numbers.ts); a channel's author gets no receipts.
    if (!confirmsDelivery(chatId) || isChannelJid(chatId)) return { messageId, kept: record };
    this.connection.later(SIMULATOR_TIMINGS.deliveredMs, () => {
      if (generation === this.connection.generation)
        this.emit('receipt', { messageId, status: 'delivered', at: new Date() });
    });
    if (readsMessages(chatId)) {
      this.connection.later(SIMULATOR_TIMINGS.readMs, () => {
        if (generation === this.connection.generation)
          this.emit('receipt', { messageId, status: 'read', at: new Date() });
      });
    }
    return { messageId, kept: record };
  }

  /** Waits the send latency; throws when the connection is not (or no longer) open. Its generation. */
  private async afterLatency(): Promise<number> {
    const generation = this.connection.generation;
    this.connection.requireOpen();
    if (this.options.sendLatencyMs > 0) await new Promise((r) => setTimeout(r, this.options.sendLatencyMs));
    if (generation !== this.connection.generation || this.connection.state !== 'open')
      throw new SendError('not-connected', 'Session is not connected');
    return generation;
  }

  /** A Status to `audience`: one message id, then each viewer's receipts (status.ts). */
  async postStatus(post: wire.StatusPost, audience: string[]): Promise<wire.SendResult> {
    const generation = await this.afterLatency();
    const messageId = simulatedMessageId();
    const record = simulatedStatus(this.accountId, messageId, post, audience);
    if (this.options.outboxFile) appendToOutbox(this.options.outboxFile, JSON.stringify(record));
    const { delivered, viewed } = statusReceipts(messageId, audience);
    const emit = (receipts: typeof delivered) => () => {
      if (generation === this.connection.generation) for (const r of receipts) this.emit('receipt', r);
    };
    this.connection.later(SIMULATOR_TIMINGS.deliveredMs, emit(delivered));
    this.connection.later(SIMULATOR_TIMINGS.readMs, emit(viewed));
    return { messageId };
  }

  private groups(): SimulatedGroup[] {
    this.groupsCache ??= simulatedGroups(this.accountId, this.phone, this.options.groups);
    return this.groupsCache;
  }
}
