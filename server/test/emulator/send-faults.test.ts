import fs from 'node:fs';
import { iqKey, WaEmulator } from '@wa/emulator';
import { type BinaryNode, getBinaryNodeChild, getBinaryNodeChildren } from 'baileys';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../wait.ts';
import { Product } from './support/product.ts';

/** SEND_TIMEOUT_MS of this product: short, so that a slow media host shows within the suite. */
const SEND_TIMEOUT_MS = 8000;
/** The account's pause after a 429 (RATE_LIMIT_PAUSE_MS; 60 s by default, shorter in this suite). */
const RATE_LIMIT_PAUSE_MS = 15_000;

/** The product's number lookup (rc14 Socket/chats.js onWhatsApp: a usync of the `contact` protocol). */
const numberLookup = (iq: BinaryNode) =>
  iqKey(iq) === 'usync get usync' &&
  !!getBinaryNodeChild(getBinaryNodeChild(getBinaryNodeChild(iq, 'usync'), 'query'), 'contact');
/** rc14's device list query inside sendMessage (Socket/messages-send.js getUSyncDevices: the `devices` protocol). */
const deviceQuery = (iq: BinaryNode) =>
  iqKey(iq) === 'usync get usync' &&
  !!getBinaryNodeChild(getBinaryNodeChild(getBinaryNodeChild(iq, 'usync'), 'query'), 'devices');
/**
 * rc14's prekey fetch for a new chat (Socket/messages-send.js assertSessions) naming the account:
 * rc14 asks by the LID the device query answered (`<user jid="…@lid">`).
 */
const prekeyFetchFor = (account: { phone: string; lid: string }) => (node: BinaryNode) =>
  node.tag === 'iq' &&
  iqKey(node) === 'encrypt get key' &&
  getBinaryNodeChildren(getBinaryNodeChild(node, 'key'), 'user').some((u) =>
    [`${account.phone}@`, `${account.phone}:`, `${account.lid}@`, `${account.lid}:`].some((p) =>
      (u.attrs.jid ?? '').startsWith(p),
    ),
  );
/**
 * The message stanza of a one-to-one send to `phone`, by its number or (once rc14 mapped it, as
 * the product addresses a contact whose LID is known) by its LID.
 */
const messageTo = (phone: string) => (node: BinaryNode) => {
  const to = node.attrs.to ?? '';
  return node.tag === 'message' && [phone, WORLD_LIDS.get(phone)].some((u) => u && to.startsWith(`${u}@`));
};
/** Each emulated account's LID by number (filled as the tests create them). */
const WORLD_LIDS = new Map<string, string>();

/**
 * Faults in the middle of sending, on the real rc14 socket: WhatsApp's 429 `rate-overlimit`, the
 * socket cut mid-send, a message lost with no ack, a slow media host. A 429 pauses
 * the account and the recipient is tried again (never a failure); a send never goes out twice;
 * a send that outlasts SEND_TIMEOUT_MS is an outcome the user sees, not a hang.
 */
describe('faults while sending, through the real Baileys socket', () => {
  let emulator: WaEmulator;
  let product: Product;
  const trace: string[] = [];

  beforeAll(async () => {
    emulator = await WaEmulator.start({ log: (l) => trace.push(`${new Date().toISOString()} ${l}`) });
    product = new Product(emulator, {
      SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
      RATE_LIMIT_PAUSE_MS: String(RATE_LIMIT_PAUSE_MS),
      LOG_LEVEL: process.env.EMULATOR_LOG_LEVEL ?? 'warn',
    });
    await product.start();
  });

  afterAll(async () => {
    // EMULATOR_TRACE=<file>: every frame both ways, and the product's log.
    if (process.env.EMULATOR_TRACE)
      fs.writeFileSync(process.env.EMULATOR_TRACE, `${trace.join('\n')}\n\n${product?.output() ?? ''}`);
    await product?.dispose();
    await emulator?.stop();
  });

  const send = (accountId: string, chatIds: string[], content: string) =>
    product.sendText(accountId, chatIds, content);
  const ended = (jobId: string, ms = 180_000) =>
    waitFor(
      `job ${jobId} to end`,
      async () => {
        const j = await product.job(jobId);
        return j.status === 'completed' || j.status === 'failed' ? j : null;
      },
      ms,
      500,
    );
  const received = (phone: string, text: string) =>
    emulator.world.account(phone).inbox.filter((m) => m.kind === 'chat' && m.text === text);
  /**
   * One more message to `contacts`, awaited until each has it: a phone gets an account's stanzas
   * in the order the account sent them, so whatever it sent them before has arrived by then.
   */
  const sendLater = async (accountId: string, contacts: string[]) => {
    const text = `And one more ${accountId}`;
    await ended(await send(accountId, contacts, text));
    for (const c of contacts)
      await waitFor(`${c} to get the later message`, async () => received(c, text).length === 1, 30_000);
  };

  it('429 rate-overlimit on the product’s number lookup and on rc14’s device query inside sendMessage: the account waits, the recipient is sent once afterwards, never failed', async () => {
    // Two accounts at once (each waits out its own pause): one 429 on each iq.
    const cases = [
      { own: '919800004291', contact: '919812429101', match: numberLookup },
      { own: '919800004292', contact: '919812429201', match: deviceQuery },
    ];
    const before = await product.credits();
    await Promise.all(
      cases.map(async ({ own, contact, match }) => {
        emulator.world.account(contact);
        const { accountId } = await product.link(own, `429 ${own}`);
        let refused = false;
        emulator.failNextIqs(
          own,
          (iq) => {
            refused ||= match(iq);
            return match(iq);
          },
          429,
          'rate-overlimit',
        );
        const text = `Rate limited once ${own}`;
        const started = Date.now();
        const jobId = await send(accountId, [contact], text);
        await waitFor(`the 429 of ${own}`, async () => refused, 60_000);
        // Never failed: a failed recipient stays failed, and this one ends sent.
        const job = await ended(jobId, RATE_LIMIT_PAUSE_MS + 120_000);
        expect(job.details[0], own).toMatchObject({ status: 'sent', error: null });
        // The account waited out the pause before trying again.
        const waited = new Date(job.details[0]!.sentAt!).getTime() - started;
        expect(waited).toBeGreaterThanOrEqual(RATE_LIMIT_PAUSE_MS - 1000);
        // The setting reaches the account's transport (its default pause is 60 s).
        expect(waited).toBeLessThan(RATE_LIMIT_PAUSE_MS + 30_000);
        await waitFor(`${contact} to get it`, async () => received(contact, text).length === 1, 30_000);
        await sendLater(accountId, [contact]);
        expect(received(contact, text)).toHaveLength(1);
        // Nothing reached the phone while the account waited.
        expect(received(contact, text)[0]!.at.getTime() - started).toBeGreaterThanOrEqual(
          RATE_LIMIT_PAUSE_MS - 1000,
        );
      }),
    );
    // Each recipient once, and the later message of each.
    expect(await product.credits()).toBe(before - 4);
  });

  it('the socket cut mid-send: nothing is sent before the server’s ack; each cut message goes again after the reconnect under its id, arrives once, charged once', async () => {
    const own = '919800004080';
    const contacts = ['919812408001', '919812408002', '919812408003', '919812408004'];
    for (const c of contacts) WORLD_LIDS.set(c, emulator.world.account(c).lid);
    const { accountId } = await product.link(own, 'cut mid-send');
    const before = await product.credits();
    const text = 'Cut in the middle';
    const ids = new Map<string, string[]>();
    const stop = emulator.watch((_c, n) => {
      const to = contacts.find((c) => messageTo(c)(n));
      if (to) ids.set(to, [...(ids.get(to) ?? []), n.attrs.id ?? '']);
    });
    // 1. Cut while rc14 fetches the second contact's prekeys: its message never left.
    const cut1 = emulator.dropOnNext(own, prekeyFetchFor(emulator.world.account(contacts[1]!)), 'before');
    // 2. Cut right after the server relayed the third one, before its ack.
    const cut2 = emulator.dropOnNext(own, messageTo(contacts[2]!), 'after');
    // 3. Cut as the fourth one reached the server, before the server relayed it: lost on the way.
    const cut3 = emulator.dropOnNext(own, messageTo(contacts[3]!), 'before');
    let cuts = 0;
    for (const cut of [cut1, cut2, cut3]) void cut.then(() => cuts++);
    const jobId = await send(accountId, contacts, text);
    const job = await ended(jobId);
    stop();
    expect(cuts).toBe(3);
    const byNumber = new Map(job.details.map((d) => [d.chatId.replace(/\D/g, ''), d]));
    // Every recipient is sent once the server acked it; each arrives once.
    for (const c of contacts) expect(byNumber.get(c), c).toMatchObject({ status: 'sent', error: null });
    for (const c of contacts)
      await waitFor(`${c} to get it`, async () => received(c, text).length > 0, 30_000);
    await sendLater(accountId, contacts);
    expect(contacts.map((c) => received(c, text).length)).toEqual([1, 1, 1, 1]);
    // The two stanzas cut before their ack went again under the same id (the phone that had the
    // third one keeps one copy); the second one's stanza left only after the reconnect.
    expect(ids.get(contacts[1]!)).toHaveLength(1);
    for (const c of contacts.slice(2)) {
      const sentIds = ids.get(c)!;
      expect(sentIds, c).toHaveLength(2);
      expect(new Set(sentIds).size, c).toBe(1);
    }
    // Each recipient once, and the later message of each.
    expect(await product.credits()).toBe(before - 8);
  });

  it('a message lost on the way with the socket up (no ack): "Send timed out: delivery unknown", refunded, nothing arrives', async () => {
    const own = '919800004082';
    const contact = '919812408201';
    emulator.world.account(contact);
    const { accountId } = await product.link(own, 'lost frame');
    const before = await product.credits();
    const lost = emulator.loseNext(own, messageTo(contact));
    const jobId = await send(accountId, [contact], 'Lost on the way');
    await lost;
    const job = await ended(jobId, SEND_TIMEOUT_MS + 60_000);
    expect(job.details[0]).toMatchObject({ status: 'failed', error: 'Send timed out: delivery unknown' });
    expect(received(contact, 'Lost on the way')).toEqual([]);
    expect(await product.credits()).toBe(before);
  });

  it('a slow media host: an upload slower than its timeout (3/4 of SEND_TIMEOUT_MS) fails before anything is sent, not "delivery unknown", and is refunded; within it, the image arrives', async () => {
    const own = '919800004081';
    const contact = '919812408101';
    emulator.world.account(contact);
    const { accountId } = await product.link(own, 'slow media');
    const before = await product.credits();
    const image = await QRCode.toBuffer('slow media host', { type: 'png', width: 200 });
    const sendImage = async (caption: string) => {
      const res = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
        chatIds: [contact],
        type: 'media',
        mime: 'image/png',
        fileName: 'slow.png',
        data: image.toString('base64'),
        content: caption,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.jobId as string;
    };
    const images = (caption: string) =>
      emulator.world.account(contact).inbox.filter((m) => m.message.imageMessage && m.text === caption);

    emulator.media.delayMs = SEND_TIMEOUT_MS + 7000;
    const slow = await ended(await sendImage('Too slow'));
    // The upload gives up before the send's own timeout (accounts/transports.ts),
    // so the recipient fails with rc14's own words (Utils/messages-media.js getWAUploadToServer)
    // instead of a relay that might still go on.
    expect(slow.details[0]).toMatchObject({ status: 'failed', error: 'Media upload failed on all hosts' });
    expect(await product.credits()).toBe(before);
    // Nothing arrives later: once the slow host has answered every upload (a relay still going
    // on would have its URL then), the next image, awaited at the phone, comes after any such relay
    // (the emulator handles an account's frames in order).
    await waitFor('the slow host to answer', async () => emulator.media.unanswered === 0, 60_000, 100);
    emulator.media.delayMs = 2000;
    const ok = await ended(await sendImage('Slow but in time'));
    expect(ok.details[0]).toMatchObject({ status: 'sent', error: null });
    const got = await waitFor('the image', async () => images('Slow but in time')[0], 30_000);
    expect(images('Too slow')).toEqual([]);
    expect((await emulator.media.decrypt(got.message.imageMessage!, 'image')).equals(image)).toBe(true);
    expect(await product.credits()).toBe(before - 1);
    emulator.media.delayMs = 0;
  });

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
