import { EventEmitter } from 'node:events';
import type { GroupMetadata, UserFacingSocketConfig, WAMessage } from 'baileys';
import type { BaileysSocket, SocketMaker } from '../../src/transport/baileys/transport.ts';

/**
 * A stand-in for one Baileys socket: the test emits WhatsApp's events on `ev` and sees what
 * the transport asked for. Each reconnect makes a new one, as with the real library.
 */
export class FakeSocket {
  readonly ev = new EventEmitter();
  ended = false;
  loggedOut = false;
  user: { id: string; lid?: string } | undefined;
  readonly sent: Array<{ jid: string; content: unknown }> = [];
  groups: Record<string, GroupMetadata> = {};
  inviteCalls: Array<{ groupId: string; at: number }> = [];
  /** What the next send's server ack says ('463' for a restriction); null for a clean ack. */
  nextAckError: string | null = null;

  constructor(readonly config: UserFacingSocketConfig) {}

  close(statusCode: number, message = 'closed') {
    const error = Object.assign(new Error(message), { output: { statusCode } });
    this.ev.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
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
      groupFetchAllParticipating: async () => self.groups,
      groupMetadata: async (jid: string) => self.groups[jid]!,
      groupInviteCode: async (groupId: string) => {
        self.inviteCalls.push({ groupId, at: Date.now() });
        return `CODE${groupId.slice(0, 6)}`;
      },
      onWhatsApp: async (...numbers: string[]) =>
        numbers.map((n) => ({ jid: `${n}@s.whatsapp.net`, exists: !n.endsWith('0000') })),
      sendMessage: async (jid: string, content: unknown) => {
        self.sent.push({ jid, content });
        const id = `3EB0FAKE${self.sent.length}`;
        const ackError = self.nextAckError;
        // Acks can beat the caller: this one arrives before the transport has stored the message.
        setImmediate(() => {
          self.ev.emit('messages.update', [
            {
              key: { id, remoteJid: jid, fromMe: true },
              update: ackError ? { status: 0, messageStubParameters: [ackError] } : { status: 2 },
            },
          ]);
        });
        return { key: { id, remoteJid: jid, fromMe: true }, message: { conversation: 'x' } } as WAMessage;
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
