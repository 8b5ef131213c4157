import { execFileSync } from 'node:child_process';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { getMediaKeys, type MediaType } from 'baileys';

/** A file as a companion uploaded it: encrypted, with its 10-byte MAC at the end. */
/** `from`: the address the upload came from (a proxy's exit address when the product uses one). */
export type Upload = { path: string; body: Buffer; at: Date; from?: string };

/** One request to the host: its method, path and the address it came from. */
export type MediaRequest = { method: string; path: string; from: string };

/**
 * The WhatsApp Web version the page names (rc14 Utils/generics.js fetchLatestWaWebVersion reads
 * `client_revision` from web.whatsapp.com/sw.js): the one the product's emulator runs announce.
 */
const CLIENT_REVISION = 1043857760;

/**
 * The media host `media_conn` names: HTTPS on 127.0.0.1 with a certificate from the emulator's
 * own CA (the product trusts it through NODE_EXTRA_CA_CERTS; rc14 uploads with Node's https,
 * Utils/messages-media.js uploadWithNodeHttp). It keeps what is POSTed to
 * `/mms/<type>/<enc sha256>` and answers `{ url, direct_path }`; GET of the direct path gives the
 * bytes back. `delayMs` slows every answer (a slow host on command). Its certificate also names
 * WhatsApp's media host (mmg.whatsapp.net, rc14 Utils/messages-media.js DEF_MEDIA_HOST, where a
 * direct path without a URL is downloaded) and web.whatsapp.com (whose /sw.js gives the version),
 * for a client routed here by a proxy (test/fakes/socks-proxy.ts `routes`).
 */
export class MediaHost {
  readonly uploads = new Map<string, Upload>();
  /** Every request, in arrival order. */
  readonly requests: MediaRequest[] = [];
  delayMs = 0;
  /** Requests received and not answered yet (a slow host still holding them). */
  unanswered = 0;
  readonly caFile: string;
  private constructor(
    private readonly server: https.Server,
    caFile: string,
    private readonly dir: string,
  ) {
    this.caFile = caFile;
  }

  static async start(): Promise<MediaHost> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-emulator-media-'));
    const f = (name: string) => path.join(dir, name);
    const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.crt'),
      '-subj',
      '/CN=wa-emulator CA',
      '-days',
      '3',
    );
    ssl('req', ...ec, '-keyout', f('host.key'), '-out', f('host.csr'), '-subj', '/CN=127.0.0.1');
    fs.writeFileSync(
      f('ext.cnf'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:mmg.whatsapp.net,DNS:web.whatsapp.com\nbasicConstraints=CA:FALSE\n',
    );
    ssl(
      'x509',
      '-req',
      '-in',
      f('host.csr'),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f('host.crt'),
      '-days',
      '3',
      '-extfile',
      f('ext.cnf'),
    );
    let host: MediaHost;
    const server = https.createServer(
      { key: fs.readFileSync(f('host.key')), cert: fs.readFileSync(f('host.crt')) },
      (req, res) => {
        host.unanswered++;
        void host.handle(req, res).finally(() => host.unanswered--);
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = new MediaHost(server, f('ca.crt'), dir);
    return host;
  }

  get hostname(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * A file a phone uploaded (the history it hands its companions): encrypted as rc14 encrypts an
   * upload (Utils/messages-media.js encryptedStream: AES-256-CBC with the media key's HKDF keys,
   * an HMAC-SHA256 of iv and ciphertext cut to 10 bytes appended), kept at a direct path. Returns
   * the fields a message names it by.
   */
  async hold(plain: Buffer, type: MediaType) {
    const mediaKey = randomBytes(32);
    const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, type);
    const cipher = createCipheriv('aes-256-cbc', cipherKey, iv);
    const enc = Buffer.concat([cipher.update(plain), cipher.final()]);
    const mac = createHmac('sha256', macKey!)
      .update(Buffer.concat([iv, enc]))
      .digest()
      .subarray(0, 10);
    const body = Buffer.concat([enc, mac]);
    const directPath = `/v/t62.7118-24/${randomBytes(12).toString('hex')}.enc`;
    this.uploads.set(directPath, { path: directPath, body, at: new Date() });
    return {
      directPath: `${directPath}?ccb=11-4&oh=emu&oe=0&_nc_sid=5e03e0`,
      mediaKey,
      fileSha256: createHash('sha256').update(plain).digest(),
      fileEncSha256: createHash('sha256').update(body).digest(),
      fileLength: plain.length,
    };
  }

  /**
   * What a phone sees of a media message: downloads it by its direct path, checks the MAC and
   * the encrypted hash, decrypts with the message's media key (rc14 getMediaKeys: HKDF of the
   * key with the type's info), and checks the plaintext's hash and length.
   */
  decrypt(
    media: {
      directPath?: string | null;
      mediaKey?: Uint8Array | null;
      fileEncSha256?: Uint8Array | null;
      fileSha256?: Uint8Array | null;
      fileLength?: number | Long | null;
    },
    type: MediaType,
  ): Promise<Buffer> {
    return (async () => {
      const upload = media.directPath ? this.uploads.get(media.directPath.split('?')[0]!) : undefined;
      if (!upload || !media.mediaKey) throw new Error(`no upload at ${media.directPath}`);
      const { iv, cipherKey, macKey } = await getMediaKeys(media.mediaKey, type);
      if (!macKey) throw new Error('no mac key for this media type');
      const enc = upload.body.subarray(0, -10);
      const mac = createHmac('sha256', macKey)
        .update(Buffer.concat([iv, enc]))
        .digest()
        .subarray(0, 10);
      if (!mac.equals(upload.body.subarray(-10))) throw new Error('media MAC mismatch');
      if (
        media.fileEncSha256 &&
        !createHash('sha256').update(upload.body).digest().equals(media.fileEncSha256)
      )
        throw new Error('media encrypted hash mismatch');
      const decipher = createDecipheriv('aes-256-cbc', cipherKey, iv);
      const plain = Buffer.concat([decipher.update(enc), decipher.final()]);
      if (media.fileSha256 && !createHash('sha256').update(plain).digest().equals(media.fileSha256))
        throw new Error('media hash mismatch');
      if (media.fileLength != null && Number(media.fileLength) !== plain.length)
        throw new Error('media length mismatch');
      return plain;
    })();
  }

  private async handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const url = new URL(req.url ?? '/', `https://${this.hostname}`);
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      from: req.socket.remoteAddress ?? '',
    });
    if (req.method === 'GET' && url.pathname === '/sw.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(`self.__swData=JSON.parse(/*BTDS*/"{\\"client_revision\\":${CLIENT_REVISION}}");`);
      return;
    }
    if (req.method === 'POST' && url.pathname.startsWith('/mms/')) {
      const directPath = `/v/t62.7118-24/${randomBytes(12).toString('hex')}.enc`;
      this.uploads.set(directPath, {
        path: url.pathname,
        body: Buffer.concat(chunks),
        at: new Date(),
        from: req.socket.remoteAddress ?? '',
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          url: `https://${this.hostname}${directPath}?ccb=11-4&oh=emu&oe=0&_nc_sid=5e03e0`,
          direct_path: `${directPath}?ccb=11-4&oh=emu&oe=0&_nc_sid=5e03e0`,
        }),
      );
      return;
    }
    const upload = req.method === 'GET' ? this.uploads.get(url.pathname) : undefined;
    if (upload) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(upload.body);
      return;
    }
    res.writeHead(404);
    res.end();
  }
}
