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
  private offlineSent = false;

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

  /** `<ib><offline count="0"/></ib>`: nothing waited offline (once per login). */
  sendOffline(): void {
    if (this.offlineSent) return;
    this.offlineSent = true;
    this.send({ tag: 'ib', attrs: {}, content: [{ tag: 'offline', attrs: { count: '0' } }] });
  }

  /** Closes the socket the way the server does after a stream error. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.close();
    this.handlers.closed(this);
  }

  /** Drops the TCP connection without a word (the network failing). */
  drop(): void {
    if (this.closed) return;
    this.closed = true;
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
        await this.handlers.node(this, node);
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
    this.handlers.closed(this);
  }
}
