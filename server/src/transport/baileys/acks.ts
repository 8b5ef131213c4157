import type { BinaryNode } from 'baileys';
import { LRUCache } from 'lru-cache';
import { SendError } from '../types.ts';
import { ackRefusal } from './send.ts';
import type { BaileysSocket } from './socket.ts';

/** Said when the socket closed before WhatsApp's server acknowledged a message: it goes again. */
export const NOT_ACKED = 'The connection closed before WhatsApp took the message: sending it again';

type Waiter = { resolve: () => void; reject: (err: SendError) => void };

/**
 * The server's `<ack class="message" id=…>` for each message the account sends: the server acks
 * every message stanza, with an `error` attribute when it refused it (rc14
 * Socket/messages-recv.js, the `CB:ack,class:message` listener and handleBadAck; whatsmeow
 * send.go SendMessage waits for this ack on the message id before it returns). rc14 itself
 * reports only the refusals (as messages.update ERROR) and never the plain ack, so the
 * transport listens on the socket's frames for it.
 *
 * A message is sent when its ack came without an error; refused with the ack's code; and, when
 * the socket closed first, not sent: the send rejects 'not-connected' with its message id, so
 * that it goes again under the same id after the reconnect (whatsmeow request.go retryFrame sends
 * an interrupted message's frame again, same id, once the socket is back).
 */
export class ServerAcks {
  private readonly waiting = new Map<string, Waiter>();
  /** Ids whose ack this class answered lately: rc14's own ERROR update for them is not a second outcome. */
  private readonly answered = new LRUCache<string, true>({ max: 2000 });

  /** Listens for the acks of a new socket. */
  listen(sock: BaileysSocket): void {
    sock.ws.on('CB:ack,class:message', (node: BinaryNode) => this.acked(node));
  }

  /**
   * Waits for the ack of message `id`; call before the stanza is written, as the ack may come
   * before the relay returns.
   */
  expect(id: string): Promise<void> {
    this.answered.set(id, true);
    return new Promise<void>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  /** The send gave up on `id` before its ack (refused before the relay, or failed writing it). */
  forget(id: string): void {
    this.waiting.delete(id);
  }

  /** True for a message whose ack a send waits for or had: its error status is the send's outcome. */
  owns(id: string): boolean {
    return this.answered.has(id);
  }

  /** The socket closed: every message not acked yet was not taken. */
  closed(): void {
    const waiting = [...this.waiting.entries()];
    this.waiting.clear();
    for (const [id, w] of waiting) w.reject(new SendError('not-connected', NOT_ACKED, null, id));
  }

  private acked(node: BinaryNode): void {
    const id = node.attrs.id;
    const w = id ? this.waiting.get(id) : undefined;
    if (!id || !w) return;
    this.waiting.delete(id);
    const code = node.attrs.error;
    if (!code) w.resolve();
    else w.reject(ackRefusal(code));
  }
}
