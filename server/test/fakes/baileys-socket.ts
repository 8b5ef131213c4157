import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { BinaryNode, GroupMetadata, USyncQuery, UserFacingSocketConfig, WAMessage } from 'baileys';
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
  /** The socket's frames by rc14's `CB:` event names (Socket/socket.js): the server's acks. */
  readonly ws = new EventEmitter();
  /** The server acks no send until false again (the frame is lost, or the socket is cut first). */
  holdAcks = false;
  ended = false;
  loggedOut = false;
  user: { id: string; lid?: string } | undefined;
  readonly sent: Array<{ jid: string; content: unknown }> = [];
  /** The message id of each of `sent`, in order. */
  readonly sentIds: string[] = [];
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
  /**
   * A delivery receipt of the next send arrives this many ms before `sendMessage` resolves
   * (null: none). rc14 processes a receipt (Socket/messages-recv.js handleReceipt) on its own
   * node handler, while relayMessage's caller may resume later (its signal-key transaction).
   */
  receiptBeforeResolveMs: number | null = null;
  /** Files uploaded to WhatsApp's media servers, with the timeout each upload was given. */
  readonly uploads: Array<{ mediaType: string; timeoutMs: number | undefined }> = [];
  /** When WhatsApp refused a send (nextSendError), and when it took one. */
  readonly refusedAt: number[] = [];
  readonly sentAt: number[] = [];
  /**
   * The account's reach-out timelock as WhatsApp's WMex query answers it
   * (xwa2_fetch_account_reachout_timelock: is_active, time_enforcement_ends in seconds).
   */
  reachout: { is_active: boolean; time_enforcement_ends?: string } = { is_active: false };
  /** How many times the timelock was asked. */
  reachoutQueries = 0;
  /**
   * Number -> the JID WhatsApp answers for it when that differs (Brazil's 9th digit, Mexico's
   * 52 1, Argentina's 54 9). Numbers ending in 0000 are not on WhatsApp.
   */
  canonical: Record<string, string> = {};
  /** Numbers ending in 0000 that joined WhatsApp since. */
  readonly joined = new Set<string>();
  /**
   * Whether a contact query's answer echoes each number asked in its `<contact>` (whatsmeow
   * user.go IsOnWhatsApp reads it as Query); false: an answer that names no number.
   */
  echoesQuery = true;
  readonly createdAt = Date.now();
  /** Numbers asked of onWhatsApp, one list per query. */
  readonly onWhatsAppQueries: string[][] = [];
  /**
   * LID user -> phone number, what rc14's LID mapping store knows (Signal/lid-mapping.js, filled
   * from usync answers, history sync and message envelopes).
   */
  lidToPn: Record<string, string> = {};
  /** The phone numbers requestPairingCode was called with (each sent a companion_hello). */
  readonly pairingRequests: string[] = [];
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

  /**
   * WhatsApp's notification that the timelock changed (Socket/messages-recv.js
   * handleReachoutTimelockNotification): lifted, or set until a time (now + 60 s when it gives none).
   */
  notifyTimelock(payload: { is_active: boolean; time_enforcement_ends?: string }) {
    this.emit('connection.update', {
      reachoutTimeLock: payload.is_active
        ? {
            isActive: true,
            timeEnforcementEnds: payload.time_enforcement_ends
              ? new Date(Number.parseInt(payload.time_enforcement_ends, 10) * 1000)
              : new Date(Date.now() + 60_000),
            enforcementType: 'DEFAULT',
          }
        : { isActive: false, enforcementType: 'DEFAULT' },
    });
  }

  /**
   * rc14 merges every creds.update into the auth state's creds (Socket/socket.js:
   * `ev.on('creds.update', update => Object.assign(creds, update))`).
   */
  private updateCreds(update: Record<string, unknown>) {
    Object.assign(this.config.auth.creds, update);
    this.ev.emit('creds.update', update);
  }

  /**
   * The phone accepted the companion (a QR scan or a pairing code): rc14's CB:iq,,pair-success
   * (Socket/socket.js) runs configureSuccessfulPairing (Utils/validate-connection.js), whose creds
   * update carries `account` (the signed device identity), `me` ({ id, name, lid }) and
   * `platform`, then emits connection.update { isNewLogin: true, qr: undefined }; WhatsApp then
   * ends the stream with 515 (call `close(515, …)`).
   */
  pairSuccess(me: { id: string; lid: string; name?: string }) {
    this.updateCreds({
      account: {
        details: Buffer.from('device-details'),
        accountSignatureKey: Buffer.alloc(32, 1),
        accountSignature: Buffer.alloc(64, 2),
        deviceSignature: Buffer.alloc(64, 3),
      },
      me,
      platform: 'android',
    });
    this.ev.emit('connection.update', { isNewLogin: true, qr: undefined });
  }

  /**
   * The phone entered the pairing code: WhatsApp's link_code_companion_reg notification, which
   * rc14 answers with companion_finish and then sets `creds.registered = true` and emits
   * creds.update (Socket/messages-recv.js handleNotification). pair-success follows.
   */
  companionFinish() {
    this.config.auth.creds.registered = true;
    this.ev.emit('creds.update', this.config.auth.creds);
  }

  /**
   * Someone writes to the account. rc14 decodes the stanza (Utils/decode-wa-message.js
   * decodeMessageNode): `remoteJid` is the chat as the stanza's `from` names it (a PN or a LID
   * JID), `remoteJidAlt` the other address when the stanza carries it (`sender_pn` in LID
   * addressing, `sender_lid` in PN addressing), `fromMe` false, `addressingMode`; the decrypted
   * message comes as it was written (a view-once or ephemeral wrapper included). It is emitted
   * through upsertMessage (Socket/chats.js, a buffered function: held during the login) as
   * messages.upsert with type 'notify', or 'append' for a message WhatsApp held while the
   * device was offline (Socket/messages-recv.js handleMessage, `node.attrs.offline`).
   */
  receive(opts: {
    from: string;
    alt?: string;
    message: Record<string, unknown>;
    offline?: boolean;
    fromMe?: boolean;
    participant?: string;
  }): string {
    const id = `3A${Math.random().toString(16).slice(2, 18).toUpperCase()}`;
    const key = {
      remoteJid: opts.from,
      remoteJidAlt: opts.from.endsWith('@g.us') ? undefined : opts.alt,
      fromMe: !!opts.fromMe,
      id,
      participant: opts.participant,
      participantAlt: opts.from.endsWith('@g.us') ? opts.alt : undefined,
      addressingMode: opts.from.endsWith('@lid') ? 'lid' : 'pn',
    };
    this.emit('messages.upsert', {
      messages: [{ key, message: opts.message, messageTimestamp: Math.floor(Date.now() / 1000) }],
      type: opts.offline ? 'append' : 'notify',
    });
    return id;
  }

  /** One message handed to WhatsApp (sendMessage or relayMessage): its id once WhatsApp took it. */
  /**
   * A retry receipt (a device that could not decrypt message `id` asks again), counted as rc14
   * counts it in Socket/messages-recv.js: handleReceipt asks willSendMessageAgain and counts with
   * updateSendMessageAgainCount, then sendMessagesAgain asks and counts again before it relays,
   * against the socket's msgRetryCounterCache and maxMsgRetryCount (Defaults/index.js: 5).
   * True when the message would be relayed again.
   */
  async retryReceipt(id: string, participant: string): Promise<boolean> {
    const cache = this.config.msgRetryCounterCache!;
    const max = this.config.maxMsgRetryCount ?? 5;
    const key = `${id}:${participant}`;
    const willSendAgain = async () => ((await cache.get<number>(key)) || 0) < max;
    const count = async () => cache.set(key, ((await cache.get<number>(key)) || 0) + 1);
    if (!(await willSendAgain())) return false;
    await count();
    if (!(await willSendAgain())) return false;
    await count();
    return true;
  }

  private async deliver(jid: string, content: unknown, id: string): Promise<string> {
    const failure = this.nextSendError;
    this.nextSendError = null;
    if (failure) {
      this.refusedAt.push(Date.now());
      // Query errors carry WhatsApp's code in `data` (Socket/socket.js assertNodeErrorFree).
      throw Object.assign(new Error(failure.text), { data: failure.code, output: { statusCode: 500 } });
    }
    this.sent.push({ jid, content });
    this.sentIds.push(id);
    this.sentAt.push(Date.now());
    const key = { id, remoteJid: jid, fromMe: true };
    // No SERVER_ACK: rc14 sets SERVER_ACK only from a receipt of type 'sender'
    // (Utils/generics.js STATUS_MAP), i.e. the phone's own receipt, never from the server's ack.
    const early = this.receiptBeforeResolveMs;
    if (early !== null) {
      this.receiptBeforeResolveMs = null;
      // Delivered before the send resolves.
      this.emit('messages.update', [{ key, update: { status: DELIVERY_ACK } }]);
      await new Promise((r) => setTimeout(r, early));
    }
    const ackError = this.nextAckError;
    this.nextAckError = null;
    if (!this.holdAcks)
      setImmediate(() => {
        if (ackError)
          // Socket/messages-recv.js handleBadAck, the first listener of an error ack: status ERROR
          // with messageStubParameters [error]; for 463 (NACK_REASONS.SenderReachoutTimelocked)
          // ACCOUNT_RESTRICTED_TEXT (Utils/decode-wa-message.js) follows the code.
          this.emit('messages.update', [
            {
              key,
              update: {
                status: ERROR,
                messageStubParameters:
                  ackError === '463' ? [ackError, 'Your account has been restricted'] : [ackError],
              },
            },
          ]);
        // The server's ack of the message stanza (`CB:ack,class:message`), with its error if any.
        this.ws.emit('CB:ack,class:message', {
          tag: 'ack',
          attrs: { class: 'message', id, from: jid, ...(ackError ? { error: ackError } : {}) },
        });
      });
    return id;
  }

  asSocket(): BaileysSocket {
    const self = this;
    return {
      ev: this.ev as unknown as BaileysSocket['ev'],
      ws: this.ws as unknown as BaileysSocket['ws'],
      get user() {
        return self.user as BaileysSocket['user'];
      },
      end: async () => {
        self.ended = true;
      },
      logout: async () => {
        self.loggedOut = true;
      },
      // Socket/groups.js groupFetchAllParticipating: the list is also emitted as groups.update.
      groupFetchAllParticipating: async () => {
        self.groupFetches++;
        self.ev.emit('groups.update', Object.values(self.groups));
        return self.groups;
      },
      // Socket/groups.js groupCreate: the group with the account as super admin and everyone
      // asked for (a number ending 0000 is one WhatsApp does not add: left out of the metadata).
      groupCreate: async (subject: string, participants: string[]) => {
        const id = `120363${String(Object.keys(self.groups).length + 1).padStart(12, '0')}@g.us`;
        const ownJid = (self.user as { id?: string } | undefined)?.id ?? null;
        const asked = participants.map((jid) => ({ id: jid, admin: null }));
        const members = asked.filter((p) => !p.id.split('@')[0]!.endsWith('0000'));
        self.groups[id] = {
          id,
          subject,
          owner: ownJid ?? undefined,
          creation: Math.floor(Date.now() / 1000),
          participants: [...(ownJid ? [{ id: ownJid, admin: 'superadmin' as const }] : []), ...members],
        } as (typeof self.groups)[string];
        return { ...self.groups[id]!, participants: [...self.groups[id]!.participants, ...asked] };
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
      // Socket/socket.js executeUSyncQuery: the server's answer to a contact query, a user per
      // number asked (in/out, under the JID WhatsApp answers, the number echoed when
      // `echoesQuery`), parsed by the query's own protocols (WAUSync/USyncQuery.js parseUSyncQueryResult).
      executeUSyncQuery: async (query: USyncQuery) => {
        const numbers = query.users.map((u) => (u.phone ?? '').replace(/\D/g, ''));
        self.onWhatsAppQueries.push(numbers);
        const users: BinaryNode[] = numbers.map((n) => {
          const on = !n.endsWith('0000') || self.joined.has(n);
          return {
            tag: 'user',
            attrs: { jid: self.canonical[n] ?? `${n}@s.whatsapp.net` },
            content: [
              {
                tag: 'contact',
                attrs: { type: on ? 'in' : 'out' },
                ...(self.echoesQuery ? { content: Buffer.from(`+${n}`) } : {}),
              },
            ],
          };
        });
        return query.parseUSyncQueryResult({
          tag: 'iq',
          attrs: { type: 'result' },
          content: [
            { tag: 'usync', attrs: {}, content: [{ tag: 'list', attrs: {}, content: users.reverse() }] },
          ],
        });
      },
      // Socket/messages-send.js sendMessage: the id given in the options, else a new one.
      sendMessage: async (jid: string, content: unknown, options?: { messageId?: string }) => {
        const id = await self.deliver(jid, content, options?.messageId ?? `3EB0FAKE${self.sent.length + 1}`);
        return { key: { id, remoteJid: jid, fromMe: true }, message: { conversation: 'x' } } as WAMessage;
      },
      // Socket/messages-send.js relayMessage: what sendMessage does after building the message.
      relayMessage: async (jid: string, message: unknown, options: { messageId: string }) =>
        self.deliver(jid, message, options.messageId),
      // Utils/messages-media.js getWAUploadToServer: uploads the encrypted file (read from its
      // temporary path) with the timeout given, answers the media URL and direct path.
      waUploadToServer: async (
        _filePath: string,
        { mediaType, timeoutMs }: { mediaType: string; timeoutMs?: number },
      ) => {
        self.uploads.push({ mediaType, timeoutMs });
        const n = self.uploads.length;
        return { mediaUrl: `https://mmg.whatsapp.net/fake/${n}`, directPath: `/fake/${n}` };
      },
      // Signal/lid-mapping.js getPNForLID: the stored mapping as `<pn user>:<lid device>@s.whatsapp.net`,
      // null when none is known (rc14 may also ask usync; a LID the server does not map stays null).
      signalRepository: {
        lidMapping: {
          getPNForLID: async (lid: string) => {
            const [user, server] = lid.split('@');
            const [lidUser, device] = (user ?? '').split(':');
            const pn = server === 'lid' ? self.lidToPn[lidUser!] : undefined;
            return pn ? `${pn}:${device ?? 0}@s.whatsapp.net` : null;
          },
        },
      },
      // Socket/socket.js requestPairingCode: an 8-character code (bytesToCrockford of 5 random
      // bytes), `creds.pairingCode` and `creds.me = { id: <phone>@s.whatsapp.net, name: '~' }`
      // set and emitted as creds.update, then the companion_hello iq is sent (not awaited).
      requestPairingCode: async (phoneNumber: string, customPairingCode?: string) => {
        if (customPairingCode && customPairingCode.length !== 8)
          throw new Error('Custom pairing code must be exactly 8 chars');
        const alphabet = '123456789ABCDEFGHJKLMNPQRSTVWXYZ';
        const code = customPairingCode ?? [...crypto.randomBytes(8)].map((b) => alphabet[b % 32]).join('');
        self.config.auth.creds.pairingCode = code;
        self.config.auth.creds.me = { id: `${phoneNumber}@s.whatsapp.net`, name: '~' };
        self.ev.emit('creds.update', self.config.auth.creds);
        self.pairingRequests.push(phoneNumber);
        return code;
      },
      fetchNewChatMessageCap: async () => ({ capping_status: 'NONE' }) as never,
      // Socket/socket.js fetchAccountReachoutTimelock: the answer is also emitted as
      // connection.update { reachoutTimeLock } (end time in seconds; '0' or none: undefined).
      fetchAccountReachoutTimelock: async () => {
        self.reachoutQueries++;
        const ends = self.reachout.time_enforcement_ends;
        const result = {
          isActive: !!self.reachout.is_active,
          timeEnforcementEnds: ends && ends !== '0' ? new Date(Number.parseInt(ends, 10) * 1000) : undefined,
          enforcementType: 'DEFAULT',
        };
        self.emit('connection.update', { reachoutTimeLock: result });
        return result;
      },
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
