import { type Connection, iqKey, WaEmulator } from '@wa/emulator';
import { type BinaryNode, getBinaryNodeChild } from 'baileys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../wait.ts';
import { Product } from './support/product.ts';

const BATCH = 5;
const SPACING_MS = 400;

/** rc14's onWhatsApp query (Socket/socket.js executeUSyncQuery with the contact protocol). */
const isNumberLookup = (node: BinaryNode) =>
  node.tag === 'iq' &&
  iqKey(node) === 'usync get usync' &&
  !!getBinaryNodeChild(getBinaryNodeChild(getBinaryNodeChild(node, 'usync'), 'query'), 'contact');

/**
 * Number lookups, LID texts and the history bootstrap through the product on the real rc14 socket: a job's numbers are
 * asked in spaced batches, their answers shared by every account of the database; a STOP from a
 * contact known only by its LID is kept and stops the first send to that contact's number; the
 * history bootstrap, read in pieces, still gives the LID mappings.
 */
describe('number lookups and LID-only replies, against the emulator', () => {
  let emulator: WaEmulator;
  let product: Product;
  const lookups: { phone: string; at: number }[] = [];

  beforeAll(async () => {
    emulator = await WaEmulator.start();
    emulator.watch((conn: Connection, node) => {
      if (conn.account && isNumberLookup(node)) lookups.push({ phone: conn.account.phone, at: Date.now() });
    });
    product = new Product(emulator, {
      LOOKUP_BATCH_SIZE: String(BATCH),
      LOOKUP_SPACING_MS: String(SPACING_MS),
    });
    await product.start();
  });

  afterAll(async () => {
    await product?.dispose();
    await emulator?.stop();
  });

  const send = (accountId: string, chatIds: string[], content: string) =>
    product.sendText(accountId, chatIds, content);
  const finished = (jobId: string) =>
    waitFor(
      'the job to finish',
      async () => {
        const job = await product.job(jobId);
        return job.details.every((d) => d.status === 'sent' || d.status === 'failed') ? job : null;
      },
      180_000,
      500,
    );

  it('a job of 12 numbers makes ceil(12 / 5) = 3 spaced lookups, not 12; the answers serve another account with none', async () => {
    const own = '919800030001';
    const other = '919800030002';
    const on = Array.from({ length: 9 }, (_, i) => `91983003${String(i + 1).padStart(4, '0')}`);
    const off = ['919830039901', '919830039902', '919830039903'];
    for (const p of on) emulator.world.account(p);
    const { accountId } = await product.link(own, 'Lookups');
    const numbers = [on[0]!, off[0]!, ...on.slice(1, 5), off[1]!, ...on.slice(5), off[2]!];
    const job = await finished(await send(accountId, numbers, 'Batched lookups'));
    const byNumber = Object.fromEntries(job.details.map((d) => [d.chatId.split('@')[0], d.status]));
    expect(byNumber).toEqual(Object.fromEntries(numbers.map((n) => [n, on.includes(n) ? 'sent' : 'failed'])));
    for (const p of on)
      expect(emulator.world.account(p).inbox.map((m) => m.text)).toEqual(['Batched lookups']);
    const mine = lookups.filter((l) => l.phone === own);
    expect(mine).toHaveLength(Math.ceil(numbers.length / BATCH));
    for (let i = 1; i < mine.length; i++)
      expect(mine[i]!.at - mine[i - 1]!.at).toBeGreaterThanOrEqual(SPACING_MS - 50);

    // Another account of the database sends to the same numbers: the stored answers, no query.
    const second = await product.link(other, 'Lookups 2');
    const again = await finished(await send(second.accountId, numbers, 'Stored answers'));
    expect(again.details.filter((d) => d.status === 'sent')).toHaveLength(on.length);
    expect(lookups.filter((l) => l.phone === other)).toHaveLength(0);
  });

  it('a STOP from a contact known only by its LID opts the number out at the first send to it, which does not go', async () => {
    const own = '919800040001';
    const lidOnly = '919840040001';
    const friend = '919840040002';
    const witness = '919840040003';
    for (const p of [lidOnly, friend, witness]) emulator.world.account(p);
    const { accountId } = await product.link(own, 'LID replies');
    const optOuts = async () =>
      (await product.call('GET', '/api/opt-outs')).json.optOuts as { phoneNumber: string; source: string }[];

    // No sender_pn and no mapping in the account's store: the number is not known yet.
    await emulator.phone(lidOnly).say(own, 'STOP', { fromLid: true });
    // A STOP by number after it: once that one is on the list, the first has been read too.
    await emulator.phone(witness).say(own, 'STOP');
    await waitFor(
      'the later opt-out',
      async () => (await optOuts()).some((o) => o.phoneNumber === witness),
      30_000,
      250,
    );
    expect((await optOuts()).map((o) => o.phoneNumber)).not.toContain(lidOnly);

    const credits = await product.credits();
    const job = await finished(await send(accountId, [lidOnly, friend], 'After the STOP'));
    const byNumber = Object.fromEntries(
      job.details.map((d) => [d.chatId.split('@')[0], [d.status, d.error]]),
    );
    expect(byNumber).toEqual({ [lidOnly]: ['failed', 'Opted out'], [friend]: ['sent', null] });
    expect(emulator.world.account(lidOnly).inbox).toEqual([]);
    expect(emulator.world.account(friend).inbox.map((m) => m.text)).toEqual(['After the STOP']);
    const list = await waitFor(
      'the opt-out',
      async () => ((await optOuts()).some((o) => o.phoneNumber === lidOnly) ? optOuts() : null),
      30_000,
      250,
    );
    expect(list.find((o) => o.phoneNumber === lidOnly)?.source).toBe('reply');
    // Two credits reserved, the opted-out one refunded.
    expect(await product.credits()).toBe(credits - 1);
  });

  it('the INITIAL_BOOTSTRAP, read in pieces, gives the LID mappings: a STOP from a LID it lists opts that number out at once', async () => {
    const own = '919800080001';
    const contact = '919840080001';
    emulator.world.account(contact);
    await product.link(own, 'Bootstrap');
    await emulator
      .phone(own)
      .sendBootstrap([{ phone: contact, lid: emulator.world.account(contact).lid, name: 'Known contact' }]);
    await new Promise((r) => setTimeout(r, 2000));
    await emulator.phone(contact).say(own, 'STOP', { fromLid: true });
    const list = await waitFor(
      'the opt-out',
      async () => {
        const rows = (await product.call('GET', '/api/opt-outs')).json.optOuts as { phoneNumber: string }[];
        return rows.some((o) => o.phoneNumber === contact) ? rows : null;
      },
      30_000,
      250,
    );
    expect(list.map((o) => o.phoneNumber)).toContain(contact);
  });

  it('shows "typing…" only to contacts found reachable, and `available` before it: none to a number not on WhatsApp or one opted out', async () => {
    const own = '919800090001';
    const [first, lidOnly, last] = ['919840090001', '919840090002', '919840090003'];
    const offline = '919840099999';
    for (const p of [first, lidOnly, last]) emulator.world.account(p);
    // A business account's pair-success names it: rc14 may then show it available.
    emulator.world.account(own, 'Emu typing shop').business = true;
    const shown: BinaryNode[] = [];
    const stopWatching = emulator.watch((conn, node) => {
      if (conn.account?.phone === own && (node.tag === 'presence' || node.tag === 'chatstate'))
        shown.push(node);
    });
    const { accountId } = await product.link(own, 'Typing');
    const policy = await product.call('PUT', `/api/session/${accountId}/policy`, {
      dailyLimit: null,
      warmUp: false,
      quietHours: null,
      timezone: 'Asia/Kolkata',
      delayMinMs: 1500,
      delayMaxMs: 1500,
      typing: true,
    });
    expect(policy.status, JSON.stringify(policy.json)).toBe(200);
    // The LID-only contact opts out before the send; the product learns it only at the send (above).
    await emulator.phone(lidOnly).say(own, 'STOP', { fromLid: true });
    await new Promise((r) => setTimeout(r, 1000));
    const shownBefore = shown.length;

    const job = await finished(await send(accountId, [first, offline, lidOnly, last], 'A longer offer text'));
    stopWatching();
    const byNumber = Object.fromEntries(
      job.details.map((d) => [d.chatId.split('@')[0], [d.status, d.error]]),
    );
    expect(byNumber).toEqual({
      [first]: ['sent', null],
      [offline]: ['failed', 'Not on WhatsApp'],
      [lidOnly]: ['failed', 'Opted out'],
      [last]: ['sent', null],
    });
    // Only the last shows "typing…" (the first has no pause before it), in the chat it is sent to.
    const during = shown.slice(shownBefore);
    const chatstates = during.filter((n) => n.tag === 'chatstate');
    const lastAccount = emulator.world.account(last);
    expect(chatstates.map((n) => n.attrs.to)).toEqual([
      expect.stringMatching(new RegExp(`^(${last}@s\\.whatsapp\\.net|${lastAccount.lid}@lid)$`)),
    ]);
    expect(chatstates.map((n) => (n.content as BinaryNode[])[0]?.tag)).toEqual(['composing']);
    // Shown available (rc14 sendPresenceUpdate('available')) once, before it.
    const available = during.findIndex((n) => n.tag === 'presence' && n.attrs.type === 'available');
    expect(available).toBeGreaterThanOrEqual(0);
    expect(available).toBeLessThan(during.indexOf(chatstates[0]!));
    expect(during.filter((n) => n.tag === 'presence' && n.attrs.type === 'available')).toHaveLength(1);
  });

  it('left no iq unanswered', () => {
    expect(emulator.gaps).toEqual([]);
  });
});
