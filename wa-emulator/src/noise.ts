import {
  aesDecryptGCM,
  aesEncryptGCM,
  Curve,
  hkdf,
  type KeyPair,
  NOISE_MODE,
  NOISE_WA_HEADER,
  proto,
  sha256,
} from 'baileys';

/**
 * The responder's half of WhatsApp's Noise XX handshake: the mirror image of rc14's
 * Utils/noise-handler.js (hash = NOISE_MODE, then the prologue header and both ephemerals are
 * mixed in; AES-256-GCM with the handshake hash as associated data and a counter in the last
 * four bytes of the IV; HKDF-SHA256 chaining), then the transport state with the keys swapped.
 */
export class NoiseResponder {
  private hash: Buffer;
  private salt: Buffer;
  private key: Buffer;
  private counter = 0;
  private transport: { enc: Buffer; dec: Buffer; readCounter: number; writeCounter: number } | null = null;
  private readonly ephemeral: KeyPair = Curve.generateKeyPair();
  private clientEphemeral: Uint8Array | null = null;
  /** The client's static (noise) public key, known once the handshake finished. */
  clientStatic: Buffer | null = null;

  constructor(
    private readonly staticKey: KeyPair,
    private readonly certChain: Uint8Array,
  ) {
    const mode = Buffer.from(NOISE_MODE);
    this.hash = mode.byteLength === 32 ? mode : sha256(mode);
    this.salt = this.hash;
    this.key = this.hash;
    this.authenticate(NOISE_WA_HEADER);
  }

  get ready(): boolean {
    return this.transport !== null;
  }

  /** Answers the client hello with the server hello: ephemeral, encrypted static key, certificate chain. */
  serverHello(clientHello: proto.HandshakeMessage.IClientHello): Uint8Array {
    const e = clientHello.ephemeral;
    if (e?.length !== 32) throw new Error('client hello without a 32-byte ephemeral key');
    this.clientEphemeral = e;
    this.authenticate(e);
    this.authenticate(this.ephemeral.public);
    this.mixIntoKey(Curve.sharedKey(this.ephemeral.private, e));
    const encStatic = this.encrypt(this.staticKey.public);
    this.mixIntoKey(Curve.sharedKey(this.staticKey.private, e));
    const payload = this.encrypt(this.certChain);
    return proto.HandshakeMessage.encode({
      serverHello: { ephemeral: this.ephemeral.public, static: encStatic, payload },
    }).finish();
  }

  /** Reads the client finish: the client's static key and its ClientPayload; then switches to transport keys. */
  clientFinish(finish: proto.HandshakeMessage.IClientFinish): proto.ClientPayload {
    if (!finish.static || !finish.payload || !this.clientEphemeral)
      throw new Error('incomplete client finish');
    this.clientStatic = this.decrypt(finish.static);
    this.mixIntoKey(Curve.sharedKey(this.ephemeral.private, this.clientStatic));
    const payload = proto.ClientPayload.decode(this.decrypt(finish.payload));
    const [write, read] = this.split(new Uint8Array(0));
    // The client encrypts with `write` and decrypts with `read` (noise-handler.js finishInit).
    this.transport = { enc: read, dec: write, readCounter: 0, writeCounter: 0 };
    return payload;
  }

  /** Encrypts one transport frame (an encoded binary node). */
  seal(plaintext: Uint8Array): Buffer {
    const t = this.transport!;
    return aesEncryptGCM(plaintext, t.enc, ivOf(t.writeCounter++), Buffer.alloc(0));
  }

  /** Decrypts one transport frame. */
  open(ciphertext: Uint8Array): Buffer {
    const t = this.transport!;
    return aesDecryptGCM(ciphertext, t.dec, ivOf(t.readCounter++), Buffer.alloc(0));
  }

  private authenticate(data: Uint8Array): void {
    this.hash = sha256(Buffer.concat([this.hash, data]));
  }

  private encrypt(plaintext: Uint8Array): Buffer {
    const out = aesEncryptGCM(plaintext, this.key, ivOf(this.counter++), this.hash);
    this.authenticate(out);
    return out;
  }

  private decrypt(ciphertext: Uint8Array): Buffer {
    const out = aesDecryptGCM(ciphertext, this.key, ivOf(this.counter++), this.hash);
    this.authenticate(ciphertext);
    return out;
  }

  private split(data: Uint8Array): [Buffer, Buffer] {
    const key = Buffer.from(hkdf(Buffer.from(data), 64, { salt: this.salt, info: '' }));
    return [key.subarray(0, 32), key.subarray(32)];
  }

  private mixIntoKey(data: Uint8Array): void {
    const [write, read] = this.split(data);
    this.salt = write;
    this.key = read;
    this.counter = 0;
  }
}

function ivOf(counter: number): Buffer {
  const iv = Buffer.alloc(12);
  iv.writeUInt32BE(counter, 8);
  return iv;
}

/**
 * Splits the client's byte stream into frames: the first bytes are the intro header (an optional
 * 'ED' routing prefix, then 'WA' 6 3), then every frame is a 3-byte big-endian length and its bytes.
 */
export class FrameReader {
  private buffer = Buffer.alloc(0);
  private introSeen = false;

  push(data: Buffer): Buffer[] {
    this.buffer = Buffer.concat([this.buffer, data]);
    const frames: Buffer[] = [];
    if (!this.introSeen) {
      let offset = 0;
      if (this.buffer.length >= 2 && this.buffer.subarray(0, 2).toString() === 'ED') {
        if (this.buffer.length < 7) return frames;
        offset = 7 + ((this.buffer[4]! << 16) | this.buffer.readUInt16BE(5));
      }
      if (this.buffer.length < offset + NOISE_WA_HEADER.length) return frames;
      if (!this.buffer.subarray(offset, offset + 4).equals(NOISE_WA_HEADER))
        throw new Error('the connection did not start with the WA noise header');
      this.buffer = this.buffer.subarray(offset + 4);
      this.introSeen = true;
    }
    while (this.buffer.length >= 3) {
      const size = (this.buffer[0]! << 16) | (this.buffer[1]! << 8) | this.buffer[2]!;
      if (this.buffer.length < size + 3) break;
      frames.push(this.buffer.subarray(3, size + 3));
      this.buffer = this.buffer.subarray(size + 3);
    }
    return frames;
  }
}

/** A frame as the server writes it: 3-byte length and the bytes (no intro header from this side). */
export function frameOf(data: Uint8Array): Buffer {
  const out = Buffer.alloc(3 + data.length);
  out[0] = (data.length >>> 16) & 0xff;
  out[1] = (data.length >>> 8) & 0xff;
  out[2] = data.length & 0xff;
  out.set(data, 3);
  return out;
}
