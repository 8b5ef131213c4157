import { type BinaryNode, Curve, getBinaryNodeChild, type KeyPair, S_WHATSAPP_NET } from 'baileys';
import { WebSocketServer } from 'ws';
import { makeCertChain, makeRootKey, type RootKey, rootKeyEnv } from './certs.ts';
import { Connection } from './connection.ts';
import { Faults } from './faults.ts';
import { answerIq, type IqContext, iqError, iqKey } from './iq.ts';
import { answerLogin } from './login.ts';
import { MediaHost } from './media-host.ts';
import { relay } from './messages.ts';
import { NoiseResponder } from './noise.ts';
import { Phone } from './phone.ts';
import { World } from './world.ts';

export type EmulatorOptions = {
  port?: number;
  host?: string;
  /** Every frame in and out, and every gap (an iq the emulator does not know), as text lines. */
  log?: (line: string) => void;
  /** When a recipient's phone acknowledges delivery, and then reads (ms after the message). */
  deliveredAfterMs?: number;
  readAfterMs?: number;
};

/**
 * WhatsApp's chat server and the phones on it, on a local WebSocket: the real Baileys socket
 * links (QR), logs in, queries and sends through it as on the network.
 */
export class WaEmulator {
  readonly world = new World();
  readonly root: RootKey = makeRootKey();
  /** Iqs the emulator answered with an error because it does not know them: `xmlns/type/child`. */
  readonly gaps: string[] = [];
  private readonly serverStatic: KeyPair = Curve.generateKeyPair();
  private readonly certChain: Uint8Array;
  private readonly connections = new Set<Connection>();
  /** The remote address of every WebSocket connection so far, in order. */
  readonly peers: string[] = [];
  private readonly byRef = new Map<string, Connection>();
  private readonly listeners = new Set<(conn: Connection, node: BinaryNode) => void>();
  private tagCounter = 0;
  /**
   * When the server says the offline queue is empty (`<ib><offline>`): after the login's last
   * query (digest), or right with `success`, before the companion's login queries are answered
   * (rc14 must then handle it before its 'open').
   */
  offlineTiming: 'after-digest' | 'with-success' = 'after-digest';
  /** Faults on command (faults.ts), by account. */
  private readonly faults = new Faults();

  private constructor(
    private readonly wss: WebSocketServer,
    /** The HTTPS host `media_conn` names (uploads and downloads of encrypted media). */
    readonly media: MediaHost,
    private options: EmulatorOptions,
  ) {
    this.certChain = makeCertChain(this.root, this.serverStatic);
    wss.on('connection', (ws, req) => {
      // Where each socket came from: a product behind a proxy shows the proxy's exit address
      // (rc14's WebSocket takes the `agent`, Socket/Client/websocket.js).
      this.peers.push(req.socket.remoteAddress ?? '');
      const conn = new Connection(ws, new NoiseResponder(this.serverStatic, this.certChain), {
        login: (c, payload) =>
          answerLogin(c, payload, {
            world: this.world,
            newId: () => this.newId(),
            refsShown: (shown) => {
              for (const ref of shown.refs) this.byRef.set(ref, shown);
            },
            loginFault: (phone) => this.faults.takeLogin(phone),
            offlineWithSuccess: this.offlineTiming === 'with-success',
          }),
        node: (c, node) => this.onNode(c, node),
        closed: (c) => this.onClosed(c),
        log: (line) => this.log(line),
      });
      this.connections.add(conn);
    });
  }

  static async start(options: EmulatorOptions = {}): Promise<WaEmulator> {
    const wss = new WebSocketServer({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
    await new Promise<void>((resolve, reject) => {
      wss.on('listening', () => resolve());
      wss.on('error', reject);
    });
    return new WaEmulator(wss, await MediaHost.start(), options);
  }

  get url(): string {
    const { port } = this.wss.address();
    return `ws://127.0.0.1:${port}/ws/chat`;
  }

  /** What the product needs to talk to this emulator instead of WhatsApp (and to trust its media host). */
  productEnv(): { WA_WS_URL: string; WA_EMULATOR_ROOT_KEY: string; NODE_EXTRA_CA_CERTS: string } {
    return {
      WA_WS_URL: this.url,
      WA_EMULATOR_ROOT_KEY: rootKeyEnv(this.root),
      NODE_EXTRA_CA_CERTS: this.media.caFile,
    };
  }

  /** The phone of an account (created on first use). */
  phone(number: string, pushName?: string): Phone {
    return new Phone(this, this.world.account(number, pushName));
  }

  async stop(): Promise<void> {
    for (const c of this.connections) c.drop();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await this.media.stop();
  }

  /** Live, logged-in connections of an account. */
  connectionsOf(phone: string): Connection[] {
    return [...this.connections].filter((c) => c.isOpen && c.account?.phone === phone && c.device);
  }

  /** The connection waiting for a scan of this QR ref. */
  registrationByRef(ref: string): Connection | undefined {
    const conn = this.byRef.get(ref);
    return conn?.isOpen ? conn : undefined;
  }

  /** The registering companion that asked to be linked to `jid` by a code (its companion_hello). */
  companionAwaitingCode(jid: string): Connection | undefined {
    return [...this.connections].find((c) => c.isOpen && c.registration && c.linkCode?.jid === jid);
  }

  /** Ends every live connection of an account with `<stream:error code=…>` (rc14 Socket/socket.js CB:stream:error). */
  streamError(phone: string, code: number, child?: BinaryNode): number {
    const conns = this.connectionsOf(phone);
    for (const c of conns) {
      c.send({ tag: 'stream:error', attrs: { code: String(code) }, content: child ? [child] : undefined });
      setTimeout(() => c.close(), 50);
    }
    return conns.length;
  }

  /** Every node the companions send goes to `listener` until the returned function is called. */
  watch(listener: (conn: Connection, node: BinaryNode) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the next node a connection of this account sends that `match` accepts. */
  nextNode(match: (conn: Connection, node: BinaryNode) => boolean, timeoutMs = 30_000): Promise<BinaryNode> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error('the awaited node never came'));
      }, timeoutMs);
      const listener = (conn: Connection, node: BinaryNode) => {
        if (!match(conn, node)) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(node);
      };
      this.listeners.add(listener);
    });
  }

  /**
   * WhatsApp restricts the account from starting new chats until `until`: a one-to-one send
   * without the recipient's privacy token is acked with error 463 (acceptance.ts), chats that
   * carry one go on, and the reach-out timelock query (w:mex) answers active until then.
   */
  restrictNewChats(phone: string, until: Date): void {
    this.world.account(phone).reachoutLockedUntil = until;
  }

  /** The next `count` messages of this account are acked with `<ack error=code>` (e.g. 463) and go nowhere. */
  failNextSends(phone: string, code: number, count = 1): void {
    this.faults.addSends(phone, code, count);
  }

  /**
   * The next login of this account is refused with `<failure reason=… …attrs>` (rc14
   * Socket/socket.js CB:failure: the reason becomes the close code, the attributes its data),
   * e.g. 402 with `expire`, 405, 406.
   */
  failNextLogin(phone: string, reason: number, attrs: Record<string, string> = {}): void {
    this.faults.addLogin(phone, { reason: String(reason), ...attrs });
  }

  /** Drops every live connection of the account without a word (the network failing). */
  drop(phone: string): number {
    const conns = this.connectionsOf(phone);
    for (const c of conns) c.drop();
    return conns.length;
  }

  /**
   * The next `count` iqs of this account that `match` accepts (`iqKey(iq)` is `xmlns type child`
   * as in KNOWN_IQS, e.g. `usync get usync`, `encrypt get key`, `w:g2 get query`) are answered
   * `<iq type="error"><error code=… text=…/>`, the way the server refuses a query it rate-limits
   * (429 `rate-overlimit`; whatsmeow names the same pair ErrIQRateOverLimit). rc14 turns it into a
   * Boom with the code as `data` (WABinary/generic-utils.js assertNodeErrorFree, called by
   * Socket/socket.js query), so the call that sent the iq rejects.
   */
  failNextIqs(
    phone: string,
    match: (iq: BinaryNode) => boolean,
    code = 429,
    text = 'rate-overlimit',
    count = 1,
  ): void {
    this.faults.addIqs(phone, { match, code, text }, count);
  }

  /**
   * The socket of this account is cut without a word (as `drop`) when the next node it sends
   * that `match` accepts arrives: `before` the server acts on it (an iq never answered, a message
   * never relayed) or `after` (a message relayed to every phone it names, its ack never sent).
   * A send cut in the middle, as the network does it.
   */
  dropOnNext(phone: string, match: (node: BinaryNode) => boolean, when: 'before' | 'after'): Promise<void> {
    return this.faults.addDrop(phone, match, when);
  }

  /**
   * The next node of this account that `match` accepts is lost on the way: never acted on, never
   * answered (no ack), the socket stays up. Resolves when it was lost. A sender then waits for an
   * ack that never comes (whatsmeow send.go SendMessage waits on its context).
   */
  loseNext(phone: string, match: (node: BinaryNode) => boolean): Promise<void> {
    return this.faults.addDrop(phone, match, 'lose');
  }

  takeSendFault(phone: string): number | undefined {
    return this.faults.takeSend(phone);
  }

  /** How soon phones acknowledge and read from now on (ms after the message), as at start. */
  setReceiptTiming(timing: Pick<EmulatorOptions, 'deliveredAfterMs' | 'readAfterMs'>): void {
    this.options = { ...this.options, ...timing };
  }

  /**
   * The recipient's delivery receipt, then its read receipt, to the sender's live companions
   * (rc14 Socket/messages-recv.js handleReceipt: no type = delivered, type read).
   */
  receipts(
    senderPhone: string,
    receipt: { id: string; from: string; participant?: string },
    { read = true }: { read?: boolean } = {},
  ): void {
    const { id, from, participant } = receipt;
    const send = (type: 'read' | null) =>
      this.sendReceipt(senderPhone, {
        id,
        from,
        ...(participant ? { participant } : {}),
        ...(type ? { type } : {}),
      });
    setTimeout(() => send(null), this.options.deliveredAfterMs ?? 100);
    if (read) setTimeout(() => send('read'), this.options.readAfterMs ?? 400);
  }

  /**
   * A phone asks the sender to send a message again, as one that failed to decrypt it does: a
   * `<receipt type="retry">` with its `<retry count id t v>` (rc14 Socket/messages-recv.js
   * handleReceipt → sendMessagesAgain, which re-encrypts and relays the message while its
   * msgRetryCounterCache allows: maxMsgRetryCount, Defaults/index.js). No key bundle: rc14 then
   * fetches one itself (assertSessions(participant, true)).
   */
  retryReceipt(
    senderPhone: string,
    receipt: { id: string; from: string; count: number; participant?: string },
  ): void {
    const retry = {
      count: String(receipt.count),
      id: receipt.id,
      t: String(Math.floor(Date.now() / 1000)),
      v: '1',
    };
    // A Status's (from 'status@broadcast') names the device that asks as `participant`, as its receipts do.
    const { id, from, participant } = receipt;
    this.sendReceipt(senderPhone, { id, from, ...(participant ? { participant } : {}), type: 'retry' }, [
      { tag: 'retry', attrs: retry },
    ]);
  }

  /** A `<receipt>` stamped now (`t`, seconds) to every linked companion of the sender (toDevices). */
  private sendReceipt(senderPhone: string, attrs: Record<string, string>, content?: BinaryNode[]): void {
    const t = String(Math.floor(Date.now() / 1000));
    void this.toDevices(senderPhone, () => ({
      tag: 'receipt',
      attrs: { ...attrs, t },
      ...(content ? { content } : {}),
    }));
  }

  /**
   * A stanza for each linked companion of the account (`build` makes it for the device: a message
   * is encrypted to each): sent to the device's live connection, or kept in its offline queue
   * until it logs in again (connection.ts sendOffline), as the server keeps what comes while a
   * device is away. Returns how many devices it was for.
   */
  async toDevices(
    phone: string,
    build: (deviceId: number) => BinaryNode | Promise<BinaryNode>,
  ): Promise<number> {
    const account = this.world.accounts.get(phone);
    const live = this.connectionsOf(phone);
    let devices = 0;
    for (const device of account?.devices.values() ?? []) {
      const node = await build(device.id);
      const conn = live.find((c) => c.device === device);
      if (conn) conn.send(node);
      else device.offline.push(node);
      devices++;
    }
    return devices;
  }

  newId(): string {
    return `emu.${Date.now().toString(36)}.${++this.tagCounter}`;
  }

  log(line: string): void {
    this.options.log?.(line);
  }

  private async onNode(conn: Connection, node: BinaryNode): Promise<void> {
    for (const listener of [...this.listeners]) listener(conn, node);
    const phone = conn.account?.phone ?? '';
    const dropFault = this.faults.takeDrop(phone, node);
    if (dropFault?.when === 'lose') {
      this.log(`LOST ${node.tag} ${node.attrs.id ?? ''}`);
      dropFault.done();
      return;
    }
    if (dropFault?.when === 'before') {
      this.log(`DROP before ${node.tag} ${node.attrs.id ?? ''}`);
      conn.drop();
      dropFault.done();
      return;
    }
    if (node.tag === 'message') {
      await relay(this, conn, node, { ack: !dropFault });
      if (dropFault) {
        this.log(`DROP after ${node.tag} ${node.attrs.id ?? ''}`);
        conn.drop();
        dropFault.done();
      }
      return;
    }
    if (node.tag === 'iq') {
      if (node.attrs.type === 'result' || node.attrs.type === 'error') return;
      const fault = this.faults.takeIq(phone, node);
      if (fault) {
        this.log(`IQ FAULT ${iqKey(node)}: ${fault.code} ${fault.text}`);
        conn.send(iqError(node, fault.code, fault.text));
        return;
      }
      const ctx: IqContext = { emulator: this, conn };
      const answer = await answerIq(ctx, node);
      if (answer === null) {
        const child = Array.isArray(node.content) ? node.content[0]?.tag : '';
        const gap = `${node.attrs.xmlns}/${node.attrs.type}/${child ?? ''}`;
        this.gaps.push(gap);
        this.log(`GAP: unknown iq ${gap}`);
        conn.send({
          tag: 'iq',
          attrs: { id: node.attrs.id!, from: node.attrs.to ?? S_WHATSAPP_NET, type: 'error' },
          content: [{ tag: 'error', attrs: { code: '501', text: 'feature-not-implemented' } }],
        });
      } else if (answer !== 'handled') conn.send(answer);
      return;
    }
    if (node.tag === 'ib' && getBinaryNodeChild(node, 'unified_session')) return;
    const batch = node.tag === 'ib' ? getBinaryNodeChild(node, 'offline_batch') : undefined;
    if (batch) conn.offlineBatch(Number(batch.attrs.count) || 100);
  }

  private onClosed(conn: Connection): void {
    this.connections.delete(conn);
    for (const ref of conn.refs) this.byRef.delete(ref);
  }
}
