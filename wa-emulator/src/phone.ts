import { randomBytes, randomInt } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import {
  aesDecryptCTR,
  aesDecryptGCM,
  aesEncryptCTR,
  type BinaryNode,
  Curve,
  derivePairingCodeKey,
  generateMessageIDV2,
  getBinaryNodeChild,
  getBinaryNodeChildBuffer,
  hkdf,
  hmacSign,
  proto,
  S_WHATSAPP_NET,
  WA_ADV_ACCOUNT_SIG_PREFIX,
  WA_ADV_DEVICE_SIG_PREFIX,
} from 'baileys';
import type { Connection } from './connection.ts';
import type { WaEmulator } from './emulator.ts';
import { bundleOf } from './iq-keys.ts';
import { readQrPng } from './qr-reader.ts';
import type { Account, LinkedDevice } from './world.ts';

/** The QR text rc14 shows (Utils/companion-reg-client-utils.js buildPairingQRData). */
export function parsePairingQr(text: string) {
  const hash = text.split('#')[1];
  const [ref, noiseKey, identityKey, advSecret, platform] = (hash ?? '').split(',');
  if (!ref || !noiseKey || !identityKey || !advSecret)
    throw new Error(`not a WhatsApp linking QR code: ${text.slice(0, 60)}`);
  return {
    ref,
    noiseKey: Buffer.from(noiseKey, 'base64'),
    identityKey: Buffer.from(identityKey, 'base64'),
    advSecret: Buffer.from(advSecret, 'base64'),
    platform: platform ?? '',
  };
}

/** An account's primary phone: it links companions by their QR and unlinks them. */
export class Phone {
  constructor(
    private readonly emulator: WaEmulator,
    readonly account: Account,
  ) {}

  get jid(): string {
    return `${this.account.phone}@s.whatsapp.net`;
  }

  /** Points the camera at a QR image (PNG) and links the companion it shows. */
  scanPng(png: Buffer): Promise<LinkedDevice> {
    return this.scan(readQrPng(png));
  }

  /**
   * Links the companion of a QR text: `pair-success` with an ADV device identity signed by the
   * account key and HMACed with the QR's adv secret, checks the companion's device signature in
   * its `pair-device-sign` answer, then restarts its stream (515), as after a real scan.
   */
  async scan(qrText: string): Promise<LinkedDevice> {
    const qr = parsePairingQr(qrText);
    const conn = this.emulator.registrationByRef(qr.ref);
    if (!conn?.registration) throw new Error('this QR code is no longer valid (no companion waits for it)');
    return this.link(conn, qr);
  }

  /**
   * "Link with phone number instead": the person types the code the companion shows. The phone
   * plays the primary's half of rc14's link-code exchange: it unwraps the companion's ephemeral
   * key from its companion_hello with the code (PBKDF2, AES-CTR: Utils/crypto.js
   * derivePairingCodeKey), sends its own wrapped the same way with its identity key in a
   * `link_code_companion_reg` notification (Socket/messages-recv.js reads link_code_pairing_ref,
   * primary_identity_pub, link_code_pairing_wrapped_primary_ephemeral_pub), then opens the
   * companion's companion_finish key bundle (HKDF 'link_code_pairing_key_bundle_encryption_key',
   * AES-GCM: it fails when the code typed was not the companion's), derives the same adv secret
   * (HKDF 'adv_secret' of both shared keys and the companion's random) and links the companion
   * as after a QR scan.
   */
  async enterPairingCode(typed: string): Promise<LinkedDevice> {
    const code = typed.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
    const conn = this.emulator.companionAwaitingCode(this.jid);
    const hello = conn?.linkCode;
    if (!conn?.registration || !hello) throw new Error(`no companion asked to link ${this.jid} by code`);
    const unwrap = async (wrapped: Buffer) =>
      aesDecryptCTR(
        wrapped.subarray(48, 80),
        await derivePairingCodeKey(code, wrapped.subarray(0, 32)),
        wrapped.subarray(32, 48),
      );
    const companionEphemeral = await unwrap(hello.wrappedEphemeral);
    const primaryEphemeral = Curve.generateKeyPair();
    const salt = randomBytes(32);
    const iv = randomBytes(16);
    const wrappedPrimary = Buffer.concat([
      salt,
      iv,
      aesEncryptCTR(primaryEphemeral.public, await derivePairingCodeKey(code, salt), iv),
    ]);
    const primaryIdentity = this.account.accountKey;
    hello.awaitingFinish = true;
    const finishing = this.emulator.nextNode(
      (c, n) =>
        c === conn &&
        n.tag === 'iq' &&
        getBinaryNodeChild(n, 'link_code_companion_reg')?.attrs.stage === 'companion_finish',
    );
    conn.send({
      tag: 'notification',
      attrs: {
        from: S_WHATSAPP_NET,
        type: 'link_code_companion_reg',
        id: this.emulator.newId(),
        t: String(Math.floor(Date.now() / 1000)),
      },
      content: [
        {
          tag: 'link_code_companion_reg',
          attrs: { stage: 'primary_hello' },
          content: [
            { tag: 'link_code_pairing_ref', attrs: {}, content: hello.ref },
            { tag: 'primary_identity_pub', attrs: {}, content: primaryIdentity.public },
            { tag: 'link_code_pairing_wrapped_primary_ephemeral_pub', attrs: {}, content: wrappedPrimary },
          ],
        },
      ],
    });
    const finish = await finishing;
    const answer = (node: BinaryNode) => conn.send(node);
    const reg = getBinaryNodeChild(finish, 'link_code_companion_reg')!;
    let keys: { identityKey: Buffer; advSecret: Buffer };
    try {
      const ref = getBinaryNodeChildBuffer(reg, 'link_code_pairing_ref');
      const identity = getBinaryNodeChildBuffer(reg, 'companion_identity_public');
      const bundle = getBinaryNodeChildBuffer(reg, 'link_code_pairing_wrapped_key_bundle');
      if (!ref || !Buffer.from(ref).equals(hello.ref)) throw new Error('the companion answered another ref');
      if (!identity || !bundle) throw new Error('companion_finish without its identity or key bundle');
      const companionShared = Curve.sharedKey(primaryEphemeral.private, companionEphemeral);
      const b = Buffer.from(bundle);
      const key = hkdf(companionShared, 32, {
        salt: b.subarray(0, 32),
        info: 'link_code_pairing_key_bundle_encryption_key',
      });
      const plain = aesDecryptGCM(b.subarray(44), Buffer.from(key), b.subarray(32, 44), Buffer.alloc(0));
      const companionIdentity = plain.subarray(0, 32);
      if (
        !companionIdentity.equals(Buffer.from(identity)) ||
        !plain.subarray(32, 64).equals(primaryIdentity.public)
      )
        throw new Error('the key bundle names other identity keys');
      const identityShared = Curve.sharedKey(primaryIdentity.private, companionIdentity);
      const advSecret = hkdf(Buffer.concat([companionShared, identityShared, plain.subarray(64, 96)]), 32, {
        info: 'adv_secret',
      });
      keys = { identityKey: Buffer.from(companionIdentity), advSecret: Buffer.from(advSecret) };
    } catch (err) {
      hello.awaitingFinish = false;
      answer({
        tag: 'iq',
        attrs: { id: finish.attrs.id!, from: S_WHATSAPP_NET, type: 'error' },
        content: [{ tag: 'error', attrs: { code: '401', text: 'not-authorized' } }],
      });
      throw new Error(`the code ${typed} does not link this companion (${(err as Error).message})`);
    }
    answer({ tag: 'iq', attrs: { id: finish.attrs.id!, from: S_WHATSAPP_NET, type: 'result' } });
    conn.linkCode = null;
    return this.link(conn, { noiseKey: hello.noiseKey, platform: hello.platform, ...keys });
  }

  /**
   * Links a registering companion whose keys the phone learnt (from its QR or the code exchange):
   * `pair-success` with an ADV device identity signed by the account key and HMACed with the adv
   * secret, checks the companion's device signature, then restarts its stream (515).
   */
  private async link(
    conn: Connection,
    qr: { noiseKey: Buffer; identityKey: Buffer; advSecret: Buffer; platform: string },
  ): Promise<LinkedDevice> {
    const reg = conn.registration!;
    if (!conn.clientStatic?.equals(qr.noiseKey))
      throw new Error('the QR noise key is not the key the companion connected with');
    if (!reg.eIdent || !Buffer.from(reg.eIdent).equals(qr.identityKey))
      throw new Error('the QR identity key is not the one the companion registered');
    const account = this.account;
    const deviceId = account.nextDeviceId++;
    const details = proto.ADVDeviceIdentity.encode({
      rawId: randomInt(2 ** 31),
      timestamp: Math.floor(Date.now() / 1000),
      keyIndex: deviceId,
    }).finish();
    const accountSignature = Curve.sign(
      account.accountKey.private,
      Buffer.concat([WA_ADV_ACCOUNT_SIG_PREFIX, details, qr.identityKey]),
    );
    const signed = proto.ADVSignedDeviceIdentity.encode({
      details,
      accountSignatureKey: account.accountKey.public,
      accountSignature,
    }).finish();
    const hmac = hmacSign(signed, qr.advSecret);
    const id = this.emulator.newId();
    const answer = this.emulator.nextNode((c, n) => c === conn && n.tag === 'iq' && n.attrs.id === id);
    conn.send({
      tag: 'iq',
      attrs: { from: S_WHATSAPP_NET, type: 'set', id, xmlns: 'md' },
      content: [
        {
          tag: 'pair-success',
          attrs: {},
          content: [
            {
              tag: 'device-identity',
              attrs: {},
              content: proto.ADVSignedDeviceIdentityHMAC.encode({ details: signed, hmac }).finish(),
            },
            { tag: 'platform', attrs: { name: 'android' } },
            ...(account.business ? [{ tag: 'biz', attrs: { name: account.pushName } }] : []),
            {
              tag: 'device',
              attrs: {
                jid: `${account.phone}:${deviceId}@s.whatsapp.net`,
                lid: `${account.lid}:${deviceId}@lid`,
              },
            },
          ],
        },
      ],
    });
    const reply = await answer;
    const identityNode = getBinaryNodeChild(getBinaryNodeChild(reply, 'pair-device-sign'), 'device-identity');
    if (reply.attrs.type !== 'result' || !(identityNode?.content instanceof Uint8Array))
      throw new Error('the companion refused the pairing');
    const returned = proto.ADVSignedDeviceIdentity.decode(identityNode.content);
    const deviceMessage = Buffer.concat([
      WA_ADV_DEVICE_SIG_PREFIX,
      details,
      qr.identityKey,
      account.accountKey.public,
    ]);
    if (!returned.deviceSignature || !Curve.verify(qr.identityKey, deviceMessage, returned.deviceSignature))
      throw new Error("the companion's device signature does not verify");
    const device: LinkedDevice = {
      id: deviceId,
      noiseKey: qr.noiseKey,
      identityKey: qr.identityKey,
      registrationId: reg.eRegid ? Buffer.from(reg.eRegid).readUIntBE(0, reg.eRegid.length) : 0,
      signedPreKey:
        reg.eSkeyId && reg.eSkeyVal && reg.eSkeySig
          ? {
              id: Buffer.from(reg.eSkeyId).readUIntBE(0, reg.eSkeyId.length),
              public: Buffer.from(reg.eSkeyVal),
              signature: Buffer.from(reg.eSkeySig),
            }
          : null,
      preKeys: new Map(),
      offline: [],
      platform: qr.platform,
    };
    account.devices.set(deviceId, device);
    // After pairing the server asks the companion to restart its stream and log in.
    conn.send({ tag: 'stream:error', attrs: { code: '515' } });
    setTimeout(() => conn.close(), 50);
    return device;
  }

  /**
   * The person writes a text to another account: encrypted by this phone to each linked
   * companion of `to` that is online (from the prekeys it uploaded), delivered as a `message`
   * stanza. Returns the message id. `fromLid`: addressed from this person's LID with no
   * `sender_pn`, as WhatsApp delivers a chat that is LID-only (rc14 Utils/decode-wa-message.js
   * extractAddressingContext: no sender_pn, so `remoteJidAlt` stays empty). `expiration`: the
   * chat's messages disappear after so many seconds, and the text carries it as a client in such
   * a chat writes it (an extendedTextMessage with contextInfo.expiration, as rc14 builds one with
   * `ephemeralExpiration`, Utils/messages.js generateWAMessageFromContent).
   */
  async say(
    to: string,
    text: string,
    options: { fromLid?: boolean; expiration?: number } = {},
  ): Promise<string> {
    const from = options.fromLid ? `${this.account.lid}@lid` : `${this.account.phone}@s.whatsapp.net`;
    const message: proto.IMessage = options.expiration
      ? { extendedTextMessage: { text, contextInfo: { expiration: options.expiration } } }
      : { conversation: text };
    return this.deliver(to, message, from);
  }

  /**
   * The phone hands its own linked companions the INITIAL_BOOTSTRAP history with these chats
   * (their LID and number), inline as WhatsApp does for a first link: a protocolMessage
   * HISTORY_SYNC_NOTIFICATION whose `initialHistBootstrapInlinePayload` is the zlib-deflated
   * HistorySync (rc14 Utils/history.js downloadAndProcessHistorySyncNotification; it must come
   * from the account itself, Utils/process-message.js SELF_ONLY_TYPES); or, `inline: false`, by
   * the direct path and keys of the HistorySync uploaded to the media host, as a notification
   * without the inline payload names it (rc14 downloadHistory: downloadContentFromMessage).
   */
  async sendBootstrap(
    chats: { phone: string; lid: string; name?: string; ephemeralExpiration?: number }[],
    { inline = true }: { inline?: boolean } = {},
  ): Promise<string> {
    const sync = proto.HistorySync.encode({
      syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
      conversations: chats.map((c) => ({
        id: `${c.lid}@lid`,
        pnJid: `${c.phone}@s.whatsapp.net`,
        ...(c.name ? { displayName: c.name } : {}),
        ...(c.ephemeralExpiration ? { ephemeralExpiration: c.ephemeralExpiration } : {}),
      })),
    }).finish();
    return this.deliver(
      this.account.phone,
      {
        protocolMessage: {
          type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
          historySyncNotification: {
            syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
            // Or uploaded to the media host, to be downloaded by its direct path ('md-msg-hist').
            ...(inline
              ? { initialHistBootstrapInlinePayload: deflateSync(sync) }
              : await this.emulator.media.hold(deflateSync(sync), 'md-msg-hist')),
            chunkOrder: 0,
            progress: 100,
          },
        },
      },
      `${this.account.phone}@s.whatsapp.net`,
    );
  }

  /**
   * A message from this phone (`from`) to each linked companion of `to`, Signal-encrypted to each
   * (as a sender's client encrypts to every device of the recipient): a companion offline gets it
   * at its next login (WaEmulator.toDevices). Poll votes (poll-vote.ts) go this way too.
   */
  async deliver(to: string, message: proto.IMessage, from: string): Promise<string> {
    const id = generateMessageIDV2(`${this.account.phone}@s.whatsapp.net`);
    const t = String(Math.floor(Date.now() / 1000));
    const devices = await this.emulator.toDevices(to, async (deviceId) => {
      const jid = `${to}:${deviceId}@s.whatsapp.net`;
      const { type, ciphertext } = await this.account.signal.encryptTo(
        jid,
        () => bundleOf(this.emulator, jid),
        message,
      );
      return {
        tag: 'message',
        attrs: { from, id, t, type: 'text', notify: this.account.pushName },
        content: [{ tag: 'enc', attrs: { v: '2', type }, content: ciphertext }],
      };
    });
    if (devices === 0) throw new Error(`${to} has no linked companion`);
    this.issueToken(to, from);
    return id;
  }

  /**
   * After a one-to-one send the person's client gives the other its privacy token, once per
   * 7-day bucket (rc14 Socket/messages-send.js relayMessage: issuePrivacyTokens after the send,
   * when shouldSendNewTcToken, Utils/tc-token-utils.js), and the server hands it over as a
   * `<notification type="privacy_token">` (Socket/messages-recv.js handlePrivacyTokenNotification:
   * `<tokens><token type="trusted_contact" t>`, stored under the sender's LID, `sender_lid`).
   */
  private issueToken(to: string, from: string): void {
    const holder = this.emulator.world.account(to);
    if (this.emulator.world.privacyToken(this.account, holder)) return;
    const token = this.emulator.world.issuePrivacyToken(this.account, holder);
    const t = String(Math.floor(Date.now() / 1000));
    void this.emulator.toDevices(to, () => ({
      tag: 'notification',
      attrs: {
        from,
        type: 'privacy_token',
        id: this.emulator.newId(),
        t,
        sender_lid: `${this.account.lid}@lid`,
      },
      content: [
        {
          tag: 'tokens',
          attrs: {},
          content: [
            {
              tag: 'token',
              attrs: { jid: `${holder.phone}@s.whatsapp.net`, t, type: 'trusted_contact' },
              content: token,
            },
          ],
        },
      ],
    }));
  }

  /** Unlinks companions from the phone ("Log out" in Linked devices): their sockets end with 401. */
  unlink(deviceId?: number): number {
    let ended = 0;
    for (const conn of this.emulator.connectionsOf(this.account.phone)) {
      if (deviceId !== undefined && conn.device?.id !== deviceId) continue;
      conn.send({
        tag: 'stream:error',
        attrs: { code: '401' },
        content: [{ tag: 'conflict', attrs: { type: 'device_removed' } }],
      });
      setTimeout(() => conn.close(), 50);
      ended++;
    }
    for (const id of [...this.account.devices.keys()])
      if (deviceId === undefined || id === deviceId) this.account.devices.delete(id);
    return ended;
  }
}
