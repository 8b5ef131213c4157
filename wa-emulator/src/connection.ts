import { type BinaryNode, binaryNodeToString, decodeBinaryNode, encodeBinaryNode, proto } from 'baileys';
import type { WebSocket } from 'ws';
import { FrameReader, frameOf, type NoiseResponder } from './noise.ts';
import type { Account, LinkedDevice } from './world.ts';

export type ConnectionHandlers = {
  /** The handshake finished: the client's payload (login or registration). */
  login(conn: Connection, payload: proto.ClientPayload): void;
  node(conn: Connection, node: BinaryNode): void | Promise<void>;
  closed(conn: Connection): void;
  log(line: string): void;
};

/** One client socket: the noise handshake, then binary nodes both ways. */
export class Connection {
  private readonly reader = new FrameReader();
  private readonly noise: NoiseResponder;
  private helloDone = false;
  private closed = false;
  /** The account and device logged in on this socket (null while registering). */
  account: Account | null = null;
  device: LinkedDevice | null = null;
  /** A registration's pairing data and QR refs, until the phone scans. */
  registration: proto.ClientPayload.IDevicePairingRegistrationData | null = null;
  refs: string[] = [];
  /**
   * A companion that asked to be linked by phone number (its companion_hello): the number, the
   * code-wrapped ephemeral key, the noise key it announced, the ref the server gave it.
   */
  linkCode: {
    jid: string;
    ref: Buffer;
    wrappedEphemeral: Buffer;
    noiseKey: Buffer;
    platform: string;
    /** A phone entered a code and waits for the companion's companion_finish. */
    awaitingFinish: boolean;
  } | null = null;
  private chain: Promise<void> = Promise.resolve();
  /** The nodes read and not yet handled, in the order they came (a ping apart: `isPing`). */
  private handling: Promise<void> = Promise.resolve();
  private offlineSent = false;
  /** The device's offline queue taken at this login, handed over in the batches the client asks for. */
  private offlineQueue: BinaryNode[] = [];
  private offlineTotal = 0;

  constructor(
    private readonly ws: WebSocket,
    noise: NoiseResponder,
    private readonly handlers: ConnectionHandlers,
  ) {
    this.noise = noise;
    ws.on('message', (data) => {
      // Frames are handled strictly in order, as they arrived.
      this.chain = this.chain.then(() => this.receive(data)).catch((err) => this.fail(err));
    });
    ws.on('close', () => this.onClose());
    ws.on('error', () => this.onClose());
  }

  get clientStatic(): Buffer | null {
    return this.noise.clientStatic;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Sends one node through the noise transport. */
  send(node: BinaryNode): void {
    if (this.closed) return;
    this.handlers.log(`> ${binaryNodeToString(node)}`);
    this.ws.send(frameOf(this.noise.seal(encodeBinaryNode(node))));
  }

  /**
   * Once per login, what waited for the device while it was offline. Nothing: `<ib><offline
   * count="0"/>` at once. Else `<ib><offline_preview>` with the counts by kind (whatsmeow
   * connectionevents.go handleIB reads count, message, notification, receipt, appdata); the client
   * asks for a batch (rc14 Socket/socket.js CB:ib,,offline_preview answers `<ib><offline_batch
   * count="100"/>`, offlineBatch below), and after the last one `<ib><offline count>` says the
   * queue is empty (rc14 CB:ib,,offline: receivedPendingNotifications).
   */
  sendOffline(): void {
    if (this.offlineSent) return;
    this.offlineSent = true;
    this.offlineQueue = this.device?.offline.splice(0) ?? [];
    this.offlineTotal = this.offlineQueue.length;
    if (this.offlineTotal === 0) {
      this.send({ tag: 'ib', attrs: {}, content: [{ tag: 'offline', attrs: { count: '0' } }] });
      return;
    }
    const count = (tag: string) => String(this.offlineQueue.filter((n) => n.tag === tag).length);
    const preview = {
      count: String(this.offlineTotal),
      message: count('message'),
      notification: count('notification'),
      receipt: count('receipt'),
      appdata: '0',
    };
    this.send({ tag: 'ib', attrs: {}, content: [{ tag: 'offline_preview', attrs: preview }] });
  }

  /**
   * The client's `<ib><offline_batch count>`: that many of the queue, each marked `offline` (rc14
   * Socket/messages-recv.js processNode queues a node with `offline` for its offline processor,
   * and handleMessage reports such a message as 'append'); then, once the queue is empty, the end.
   */
  offlineBatch(count: number): void {
    for (const node of this.offlineQueue.splice(0, Math.max(1, count)))
      this.send({ ...node, attrs: { ...node.attrs, offline: '1' } });
    if (this.offlineQueue.length === 0 && this.offlineTotal > 0) {
      this.send({
        tag: 'ib',
        attrs: {},
        content: [{ tag: 'offline', attrs: { count: String(this.offlineTotal) } }],
      });
      this.offlineTotal = 0;
    }
  }

  /** What was taken for this login and not handed over goes back to the device's queue. */
  private keepUndelivered(): void {
    if (this.offlineQueue.length > 0) this.device?.offline.unshift(...this.offlineQueue.splice(0));
  }

  /** Closes the socket the way the server does after a stream error. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.keepUndelivered();
    this.ws.close();
    this.handlers.closed(this);
  }

  /** Drops the TCP connection without a word (the network failing). */
  drop(): void {
    if (this.closed) return;
    this.closed = true;
    this.keepUndelivered();
    this.ws.terminate();
    this.handlers.closed(this);
  }

  private async receive(data: Buffer): Promise<void> {
    for (const frame of this.reader.push(data)) {
      if (this.closed) return;
      if (!this.helloDone) {
        const hello = proto.HandshakeMessage.decode(frame);
        if (!hello.clientHello) throw new Error('expected a client hello');
        this.ws.send(frameOf(this.noise.serverHello(hello.clientHello)));
        this.helloDone = true;
      } else if (!this.noise.ready) {
        const finish = proto.HandshakeMessage.decode(frame);
        if (!finish.clientFinish) throw new Error('expected a client finish');
        this.handlers.login(this, this.noise.clientFinish(finish.clientFinish));
      } else {
        const node = await decodeBinaryNode(this.noise.open(frame));
        this.handlers.log(`< ${binaryNodeToString(node)}`);
        // The server answers a keep-alive whatever else it is doing: rc14 (Socket/socket.js
        // startKeepAliveRequest) ends a connection that has heard nothing for its keep-alive
        // interval + 5 s, and a relay's fan-out to 1,500 phones in this process took longer.
        // Every other node is handled after the ones before it, as they came.
        if (isPing(node)) await this.handlers.node(this, node);
        else
          this.handling = this.handling
            .then(() => (this.closed ? undefined : this.handlers.node(this, node)))
            .catch((err) => this.fail(err));
      }
    }
  }

  private fail(err: unknown): void {
    this.handlers.log(`connection failed: ${(err as Error).stack ?? String(err)}`);
    this.drop();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.keepUndelivered();
    this.handlers.closed(this);
  }
}

/** rc14's keep-alive request: `<iq xmlns="w:p" type="get"><ping/></iq>`. */
function isPing(node: BinaryNode): boolean {
  return (
    node.tag === 'iq' &&
    node.attrs.xmlns === 'w:p' &&
    node.attrs.type === 'get' &&
    Array.isArray(node.content) &&
    node.content[0]?.tag === 'ping'
  );
}
