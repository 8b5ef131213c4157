import { EventEmitter } from 'node:events';
import type { GroupMetadata, UserFacingSocketConfig, WAMessage } from 'baileys';
import type { BaileysSocket, SocketMaker } from '../../src/transport/baileys/transport.ts';

/** WAMessageStatus (WAProto): ERROR 0, PENDING 1, SERVER_ACK 2, DELIVERY_ACK 3, READ 4. */
const ERROR = 0;
const DELIVERY_ACK = 3;

/**
 * A stand-in for one Baileys 7.0.0-rc14 socket: the test emits WhatsApp's events on `ev` and
 * sees what the transport asked for. Each reconnect makes a new one, as with the real library.
 * Every behaviour names the rc14 file (under node_modules/baileys/lib) it copies.
 */
export class FakeSocket {
  readonly ev = new EventEmitter();
  ended = false;
  loggedOut = false;
  user: { id: string; lid?: string } | undefined;
  readonly sent: Array<{ jid: string; content: unknown }> = [];
  groups: Record<string, GroupMetadata> = {};
  inviteCalls: Array<{ groupId: string; at: number }> = [];
  /** Groups asked one by one (groupMetadata). */
  readonly metadataQueries: string[] = [];
  /** How many times the whole group list was fetched. */
  groupFetches = 0;
  /** The error code of the next send's ack ('463' for a restriction); null for none. */
  nextAckError: string | null = null;
  /** The next send is refused by WhatsApp with this code (e.g. 429 rate-overlimit). */
  nextSendError: { code: number; text: string } | null = null;
  /** A delivery receipt of the next send arrives before `sendMessage` resolves. */
  receiptBeforeResolve = false;
  /**
   * Number -> the JID WhatsApp answers for it when that differs (Brazil's 9th digit, Mexico's
   * 52 1, Argentina's 54 9). Numbers ending in 0000 are not on WhatsApp.
   */
  canonical: Record<string, string> = {};
  /** Numbers ending in 0000 that joined WhatsApp since. */
  readonly joined = new Set<string>();
  readonly createdAt = Date.now();
  /** Numbers asked of onWhatsApp, one list per query. */
  readonly onWhatsAppQueries: string[][] = [];
  /** Events held while the login's offline notifications are processed (see `login`). */
  private buffered: Array<[string, unknown]> | null = null;

  constructor(readonly config: UserFacingSocketConfig) {}

  /**
   * Closes like rc14: Socket/socket.js ends the socket with a Boom whose `output.statusCode`
   * is the code and whose `data` holds the failure stanza's attributes (CB:failure), e.g. 402,
   * 405, 406; `end` emits connection.update 'close' with lastDisconnect.error.
   */
  close(statusCode: number, message = 'closed', data?: Record<string, string>) {
    const error = Object.assign(new Error(message), { output: { statusCode }, data });
    this.ev.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  }

  /**
   * Opens like rc14: `connection: 'open'` comes first, then the offline notifications; until
   * `receivedPendingNotifications` every event goes through the event buffer
   * (Socket/socket.js CB:success -> ev.buffer(); Utils/event-buffer.js flushes on
   * `receivedPendingNotifications`, Socket/messages-recv.js). Call `flushLogin` to end it.
   */
  open() {
    this.ev.emit('connection.update', { connection: 'open' });
    this.buffered = [];
  }

  flushLogin() {
    const held = this.buffered ?? [];
    this.buffered = null;
    this.ev.emit('connection.update', { receivedPendingNotifications: true });
    for (const [event, payload] of held) this.ev.emit(event, payload);
  }

  /** Emits now, or into the login buffer while it is held. */
  emit(event: string, payload: unknown) {
    if (this.buffered) this.buffered.push([event, payload]);
    else this.ev.emit(event, payload);
  }

  asSocket(): BaileysSocket {
    const self = this;
    return {
      ev: this.ev as unknown as BaileysSocket['ev'],
      get user() {
        return self.user as BaileysSocket['user'];
      },
      end: async () => {
        self.ended = true;
      },
      logout: async () => {
        self.loggedOut = true;
      },
      groupFetchAllParticipating: async () => {
        self.groupFetches++;
        return self.groups;
      },
      groupMetadata: async (jid: string) => {
        self.metadataQueries.push(jid);
        return self.groups[jid]!;
      },
      groupInviteCode: async (groupId: string) => {
        self.inviteCalls.push({ groupId, at: Date.now() });
        return `CODE${groupId.slice(0, 6)}`;
      },
      // Socket/socket.js onWhatsApp: a USync contact query; only the numbers that exist are
      // listed (`filter(a => !!a.contact)`), each under the JID WhatsApp answers, in no
      // promised order and with nothing naming the number asked.
      onWhatsApp: async (...numbers: string[]) => {
        self.onWhatsAppQueries.push(numbers);
        return numbers
          .filter((n) => !n.endsWith('0000') || self.joined.has(n))
          .map((n) => ({ jid: self.canonical[n] ?? `${n}@s.whatsapp.net`, exists: true }))
          .reverse();
      },
      sendMessage: async (jid: string, content: unknown) => {
        const failure = self.nextSendError;
        self.nextSendError = null;
        if (failure) {
          // Query errors carry WhatsApp's code in `data` (Socket/socket.js assertNodeErrorFree).
          throw Object.assign(new Error(failure.text), { data: failure.code, output: { statusCode: 500 } });
        }
        self.sent.push({ jid, content });
        const id = `3EB0FAKE${self.sent.length}`;
        const key = { id, remoteJid: jid, fromMe: true };
        // No SERVER_ACK: rc14 sets SERVER_ACK only from a receipt of type 'sender'
        // (Utils/generics.js STATUS_MAP), i.e. the phone's own receipt, never from the server's ack.
        if (self.receiptBeforeResolve) {
          self.receiptBeforeResolve = false;
          // A receipt (Socket/messages-recv.js handleReceipt) can be processed before
          // relayMessage's caller resumes: delivered before the send resolves.
          self.emit('messages.update', [{ key, update: { status: DELIVERY_ACK } }]);
        }
        const ackError = self.nextAckError;
        self.nextAckError = null;
        if (ackError) {
          // Socket/messages-recv.js handleBadAck: an ack with an error attribute becomes
          // messages.update status ERROR with messageStubParameters [error], after the send resolved.
          setImmediate(() =>
            self.emit('messages.update', [
              { key, update: { status: ERROR, messageStubParameters: [ackError] } },
            ]),
          );
        }
        return { key, message: { conversation: 'x' } } as WAMessage;
      },
      fetchNewChatMessageCap: async () => ({ capping_status: 'NONE' }) as never,
    } as unknown as BaileysSocket;
  }
}

/** A socket maker that records every socket it made. */
export function fakeSocketMaker(): { make: SocketMaker; sockets: FakeSocket[] } {
  const sockets: FakeSocket[] = [];
  return {
    sockets,
    make: (config) => {
      const s = new FakeSocket(config);
      sockets.push(s);
      return s.asSocket();
    },
  };
}
