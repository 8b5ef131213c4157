import {
  Curve,
  DEFAULT_CONNECTION_CONFIG,
  encodeWAMessage,
  generateSignalPubKey,
  initAuthCreds,
  proto,
  type SignalKeyStoreWithTransaction,
  unpadRandomMax16,
} from 'baileys';
import pino from 'pino';
import { memoryKeyStore } from './memory-keys.ts';

/** What `encrypt get key` hands out for one device (rc14 Utils/signal.js parseAndInjectE2ESessions reads it). */
export type PreKeyBundle = {
  registrationId: number;
  identity: Buffer;
  signedPreKey: { id: number; public: Buffer; signature: Buffer };
  preKey: { id: number; public: Buffer } | null;
};

const silent = pino({ level: 'silent' });

/**
 * The Signal side of a phone (device 0 of an account): its identity, signed prekey and one-time
 * prekeys, and the sessions its contacts open with it. The ratchets are libsignal's, driven
 * through the repository rc14 itself builds (Defaults makeSignalRepository), so the phone
 * decrypts exactly what a Baileys peer would.
 */
export class SignalPeer {
  private readonly creds = initAuthCreds();
  /**
   * A phone's keys, with the `transaction` rc14's Signal/libsignal.js wraps each decryption in, run
   * directly. rc14's own (Utils/auth-utils.js addTransactionCapability) holds an AsyncLocalStorage
   * per store: with one per emulated phone, node's async_hooks copy every enabled storage into each
   * new promise of the process, so a group of 1,500 phones made every later step 1,500 times dearer.
   * A phone's keys live in memory and need no commit; libsignal serialises the work per address.
   */
  private readonly keys: SignalKeyStoreWithTransaction = {
    ...memoryKeyStore(),
    isInTransaction: () => false,
    transaction: (work) => work(),
  };
  private readonly repo = DEFAULT_CONNECTION_CONFIG.makeSignalRepository(
    { creds: this.creds, keys: this.keys },
    silent,
    async () => [],
  );
  private nextPreKeyId = 1;

  /** A bundle with a fresh one-time prekey (each is handed out once, as the server does). */
  async bundle(): Promise<PreKeyBundle> {
    const id = this.nextPreKeyId++;
    const pair = Curve.generateKeyPair();
    await this.keys.set({ 'pre-key': { [id]: pair } });
    const spk = this.creds.signedPreKey;
    return {
      registrationId: this.creds.registrationId,
      identity: Buffer.from(this.creds.signedIdentityKey.public),
      signedPreKey: {
        id: spk.keyId,
        public: Buffer.from(spk.keyPair.public),
        signature: Buffer.from(spk.signature),
      },
      preKey: { id, public: Buffer.from(pair.public) },
    };
  }

  /** Decrypts a `pkmsg` or `msg` from `senderJid` (a device JID) into the message it carries. */
  async decrypt(senderJid: string, type: 'pkmsg' | 'msg', ciphertext: Uint8Array): Promise<proto.Message> {
    const padded = await this.repo.decryptMessage({ jid: senderJid, type, ciphertext });
    return proto.Message.decode(unpadRandomMax16(padded));
  }

  /**
   * Encrypts a message to another device (`pkmsg` the first time, from its prekey bundle, which
   * `bundle` fetches only then; `msg` after), as a phone writing to a companion.
   */
  async encryptTo(
    jid: string,
    bundle: () => Promise<PreKeyBundle | null>,
    message: proto.IMessage,
  ): Promise<{ type: 'pkmsg' | 'msg'; ciphertext: Uint8Array }> {
    if (!(await this.repo.validateSession(jid)).exists) {
      const b = await bundle();
      if (!b) throw new Error(`no prekey bundle for ${jid}`);
      await this.repo.injectE2ESession({
        jid,
        session: {
          registrationId: b.registrationId,
          identityKey: generateSignalPubKey(b.identity),
          signedPreKey: {
            keyId: b.signedPreKey.id,
            publicKey: generateSignalPubKey(b.signedPreKey.public),
            signature: b.signedPreKey.signature,
          },
          preKey: b.preKey
            ? { keyId: b.preKey.id, publicKey: generateSignalPubKey(b.preKey.public) }
            : (undefined as unknown as { keyId: number; publicKey: Uint8Array }),
        },
      });
    }
    return this.repo.encryptMessage({ jid, data: encodeWAMessage(message) });
  }

  /** Takes the sender key a group member distributed in a pairwise message. */
  async takeSenderKey(item: proto.Message.ISenderKeyDistributionMessage, authorJid: string): Promise<void> {
    await this.repo.processSenderKeyDistributionMessage({ item, authorJid });
  }

  /** Decrypts a group `skmsg` from `authorJid`. */
  async decryptGroup(groupJid: string, authorJid: string, ciphertext: Uint8Array): Promise<proto.Message> {
    const padded = await this.repo.decryptGroupMessage({ group: groupJid, authorJid, msg: ciphertext });
    return proto.Message.decode(unpadRandomMax16(padded));
  }
}
