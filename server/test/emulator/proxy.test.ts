import { WaEmulator } from '@wa/emulator';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocksProxy } from '../fakes/socks-proxy.ts';
import { waitFor } from '../wait.ts';
import { Product } from './support/product.ts';

const OWN = '919800003101';
const CONTACT = '919813310101';

/**
 * A proxy per account: the product (a real process on rc14's socket) links an account
 * whose proxy is a loopback SOCKS5 server dialling out from 127.0.0.2. The emulator sees the
 * WebSocket, the WhatsApp Web version lookup, the media upload and the history download come
 * from 127.0.0.2 (the proxy routes WhatsApp's media and web hosts to the emulator's media host,
 * as DNS would); with the proxy stopped, the account shows the proxy as the reason, keeps trying
 * it, and never connects from 127.0.0.1 (direct).
 */
describe('an account behind its own SOCKS5 proxy, against the emulator', () => {
  let emulator: WaEmulator;
  let product: Product;
  let proxy: Awaited<ReturnType<typeof startSocksProxy>>;
  /** WhatsApp's media host (rc14 DEF_MEDIA_HOST) and web page, reached through the proxy: the emulator's media host. */
  const routes = () => {
    const [host, port] = emulator.media.hostname.split(':');
    const media = { host: host!, port: Number(port) };
    return { 'mmg.whatsapp.net:443': media, 'web.whatsapp.com:443': media };
  };

  beforeAll(async () => {
    emulator = await WaEmulator.start();
    emulator.world.account(OWN, 'Proxied shop');
    emulator.world.account(CONTACT);
    proxy = await startSocksProxy({ username: 'shop', password: 's3cret:pass', routes: routes() });
    // The proxy listens on this host: a loopback address, refused unless the operator allows it.
    // No WA_VERSION: the product looks the version up (through the account's proxy).
    product = new Product(emulator, { ALLOW_PRIVATE_PROXIES: 'true', WA_VERSION: '' });
    await product.start();
  });

  afterAll(async () => {
    await product?.dispose();
    await proxy?.stop();
    await emulator?.stop();
  });

  it('links, sends an image through the proxy, and with the proxy stopped reports it and never goes direct', async () => {
    const bad = await product.call('POST', '/api/create-instance', {
      phoneNumber: `+${OWN}`,
      sessionName: 'Proxied',
      proxy: `ftp://127.0.0.1:${proxy.port}`,
    });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe(
      'Give the proxy as socks5://user:password@host:port or http://user:password@host:port',
    );

    const created = await product.call('POST', '/api/create-instance', {
      phoneNumber: `+${OWN}`,
      sessionName: 'Proxied',
      proxy: `socks5://shop:${encodeURIComponent('s3cret:pass')}@127.0.0.1:${proxy.port}`,
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const accountId: string = created.json.sessionId;
    const shown = await product.call('GET', `/api/session/${accountId}/proxy`);
    expect(shown.json.proxy).toEqual({
      scheme: 'socks5',
      host: '127.0.0.1',
      port: proxy.port,
      username: 'shop',
      hasPassword: true,
    });
    expect(JSON.stringify(shown.json)).not.toContain('s3cret');

    const png = await waitFor('the QR image', () => product.qrPng(accountId), 120_000, 500);
    await emulator.phone(OWN).scanPng(png);
    await product.waitStatus(accountId, 'CONNECTED');
    expect(emulator.peers.length).toBeGreaterThan(0);
    expect(new Set(emulator.peers)).toEqual(new Set(['127.0.0.2']));
    expect(proxy.connects.length).toBeGreaterThan(0);
    // The version was looked up before the login, through the proxy.
    expect(emulator.media.requests.filter((r) => r.path === '/sw.js')).toEqual([
      { method: 'GET', path: '/sw.js', from: '127.0.0.2' },
    ]);

    const image = await QRCode.toBuffer('through the proxy', { type: 'png', width: 200 });
    const sent = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [CONTACT],
      type: 'media',
      mime: 'image/png',
      fileName: 'proxy.png',
      data: image.toString('base64'),
      content: 'Via the proxy',
    });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    await waitFor(
      'the image at the contact',
      async () => emulator.world.account(CONTACT).inbox.some((m) => m.text === 'Via the proxy') || null,
      60_000,
      100,
    );
    const uploads = [...emulator.media.uploads.values()];
    expect(uploads.length).toBe(1);
    expect(uploads[0]!.from).toBe('127.0.0.2');

    // The history bootstrap by its direct path (not inline): downloaded through the proxy too.
    const before = emulator.media.requests.length;
    await emulator
      .phone(OWN)
      .sendBootstrap([{ phone: CONTACT, lid: emulator.world.account(CONTACT).lid }], { inline: false });
    const download = await waitFor(
      'the history download',
      async () => emulator.media.requests.slice(before).find((r) => r.method === 'GET') ?? null,
      30_000,
      100,
    );
    expect(download.from).toBe('127.0.0.2');
    // Nothing reached the emulator's media host from the server's own address.
    expect(new Set(emulator.media.requests.map((r) => r.from))).toEqual(new Set(['127.0.0.2']));

    // The proxy dies: the account says so, and keeps trying through the proxy only.
    const peersBefore = emulator.peers.length;
    await proxy.stop();
    await waitFor(
      'the proxy as the reason',
      async () => {
        const s = await product.account(accountId);
        return s?.status !== 'CONNECTED' && s?.statusReason?.startsWith('Proxy refused the connection')
          ? s
          : null;
      },
      60_000,
      250,
    );
    // It tries the dead proxy again (a retry that went direct would connect) ...
    const refusals = () =>
      product.closes(accountId).filter((c) => c.reason.startsWith('Proxy refused the connection')).length;
    const refusedBefore = refusals();
    expect(refusedBefore).toBeGreaterThan(0);
    await waitFor('another refusal by the dead proxy', async () => refusals() > refusedBefore, 60_000, 250);
    expect((await product.account(accountId))?.status).not.toBe('CONNECTED');
    // ... and when the proxy is back on its port, connects through it: every connection the
    // emulator saw since came from the proxy (a direct one comes from 127.0.0.1).
    proxy = await startSocksProxy({
      username: 'shop',
      password: 's3cret:pass',
      port: proxy.port,
      routes: routes(),
    });
    await product.waitStatus(accountId, 'CONNECTED');
    const since = emulator.peers.slice(peersBefore);
    expect(since.length).toBeGreaterThan(0);
    expect(new Set(since)).toEqual(new Set(['127.0.0.2']));
  });
});
