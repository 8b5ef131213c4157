import { EventEmitter } from 'node:events';
import { LINKED_PHONE_CAPABILITIES } from '@wa/contract';
import type {
  GroupInfo,
  OutgoingMessage,
  SendOptions,
  SendResult,
  Transport,
  TransportEventMap,
  TransportState,
} from '../../src/transport/types.ts';
import { SendError } from '../../src/transport/types.ts';

export type SentRecord = { chatId: string; message: OutgoingMessage; at: number; messageId: string };

/**
 * A Transport for dispatcher unit tests: records every send, and lets a test decide per chat
 * what happens (an error, a delay) through `behave`.
 */
export class FakeTransport extends EventEmitter<TransportEventMap> implements Transport {
  state: TransportState = 'open';
  readonly capabilities = LINKED_PHONE_CAPABILITIES;
  readonly sent: SentRecord[] = [];
  /** Called before each send; may throw a SendError or wait. */
  behave: (chatId: string) => Promise<void> | void = (chatId) => {
    if (/0000@/.test(chatId)) throw new SendError('not-on-whatsapp', 'Not on WhatsApp');
  };
  private counter = 0;

  constructor(readonly accountId: string) {
    super();
  }

  async connect(): Promise<void> {
    this.state = 'open';
  }
  async close(): Promise<void> {
    this.state = 'closed';
  }
  async logout(): Promise<void> {
    this.state = 'closed';
  }
  /** Always linked: no linking is under way. */
  async requestPairingCode(): Promise<never> {
    throw new Error('No linking is under way');
  }
  async fetchGroups(): Promise<GroupInfo[]> {
    return [];
  }
  async inviteCode(): Promise<string | null> {
    return null;
  }
  async onWhatsApp(numbers: string[]): Promise<Map<string, string | null>> {
    return new Map(numbers.map((n) => [n, n.endsWith('0000') ? null : `${n}@s.whatsapp.net`]));
  }
  readonly presences: Array<{ chatId: string; state: 'composing' | 'paused'; at: number }> = [];

  async presence(chatId: string, state: 'composing' | 'paused'): Promise<void> {
    this.presences.push({ chatId, state, at: Date.now() });
  }

  async send(chatId: string, message: OutgoingMessage, options: SendOptions = {}): Promise<SendResult> {
    if (this.state !== 'open') throw new SendError('not-connected', 'Session is not connected');
    await this.behave(chatId);
    await options.beforeRelay?.(chatId);
    this.counter += 1;
    const messageId = `FAKE${this.counter}_${this.accountId}`;
    this.sent.push({ chatId, message, at: Date.now(), messageId });
    return { messageId };
  }
}
