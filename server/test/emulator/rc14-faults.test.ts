import { iqKey, WaEmulator } from '@wa/emulator';
import { type BinaryNode, BufferJSON, getBinaryNodeChild, getBinaryNodeChildren } from 'baileys';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BaileysTransport } from '../../src/transport/baileys/transport.ts';
import type { UndeliveredCause } from '../../src/transport/types.ts';
import { waitFor } from '../wait.ts';
import { sendsBeforeAndAfterRestart } from './support/restart-sends-run.ts';
import { linkedTransport } from './support/transport-rig.ts';

/** rc14's forced key fetch (Socket/messages-send.js assertSessions(jids, true)): `<user reason="identity">`. */
const identityFetches = (node: BinaryNode) =>
  node.tag === 'iq' && iqKey(node) === 'encrypt get key'
    ? getBinaryNodeChildren(getBinaryNodeChild(node, 'key'), 'user').filter(
        (u) => u.attrs.reason === 'identity',
      ).length
    : 0;

/**
 * Faults found by reading rc14, each through the product's Baileys transport on
 * the real rc14 socket against the emulator, in this process (its clock can be moved).
 */
describe('rc14 faults, through the transport on the real socket', () => {
  let emulator: WaEmulator;
  const trace: string[] = [];
  const open: BaileysTransport[] = [];

  beforeAll(async () => {
    emulator = await WaEmulator.start({ log: (l) => trace.push(l) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    for (const t of open) await t.close();
    await emulator?.stop();
  });

  const link = async (phone: string) => {
    const rig = await linkedTransport(emulator, phone);
    open.push(rig.transport);
    return rig;
  };
  const inboxOf = (phone: string, text: string) =>
    emulator.world.account(phone).inbox.filter((m) => m.text === text);
  const members = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(2, '0')}`);

  it('a second send to a PN group 6 minutes later fetches no identity keys (device lists kept 24 h, not rc14’s 5 min)', async () => {
    const own = '919800010001';
    const others = members('9198120101', 5);
    const group = emulator.world.addGroup({
      subject: 'Devices kept',
      creator: own,
      addressingMode: 'pn',
      members: [{ phone: own, admin: 'superadmin' }, ...others.map((phone) => ({ phone, admin: null }))],
    });
    const { transport } = await link(own);
    const jid = `${group.id}@g.us`;
    let fetched = 0;
    const stop = emulator.watch((conn, node) => {
      if (conn.account?.phone === own) fetched += identityFetches(node);
    });
    await transport.send(jid, { kind: 'text', text: 'First to the PN group' });
    for (const m of others)
      await waitFor(
        `${m} to get the first`,
        async () => inboxOf(m, 'First to the PN group').length === 1,
        30_000,
        50,
      );
    // rc14 answers each member's LID from the device query and forces a key fetch for it.
    expect(fetched).toBeGreaterThanOrEqual(others.length);

    fetched = 0;
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    await transport.send(jid, { kind: 'text', text: 'Second, 6 minutes later' });
    for (const m of others)
      await waitFor(
        `${m} to get the second`,
        async () => inboxOf(m, 'Second, 6 minutes later').length === 1,
        30_000,
        50,
      );
    stop();
    expect(fetched).toBe(0);
  });

  it('a message to a disappearing-messages group disappears too (contextInfo.expiration is the group’s timer)', async () => {
    const own = '919800010006';
    const [member] = members('9198120106', 1);
    const week = 7 * 24 * 3600;
    const group = emulator.world.addGroup({
      subject: 'Disappearing',
      creator: own,
      addressingMode: 'lid',
      ephemeral: week,
      members: [
        { phone: own, admin: 'superadmin' },
        { phone: member!, admin: null },
      ],
    });
    const { transport } = await link(own);
    await transport.send(`${group.id}@g.us`, { kind: 'text', text: 'Gone in a week' });
    const [got] = await waitFor(
      'the member to get it',
      async () => {
        const found = inboxOf(member!, 'Gone in a week');
        return found.length ? found : null;
      },
      60_000,
    );
    const inner =
      got!.message.extendedTextMessage ?? got!.message.ephemeralMessage?.message?.extendedTextMessage;
    expect(inner?.contextInfo?.expiration).toBe(week);
  });

  it('a member added while the account was offline gets the first group send after the reconnect', async () => {
    const own = '919800010005';
    const [first, late] = members('9198120105', 2);
    const group = emulator.world.addGroup({
      subject: 'Grows offline',
      creator: own,
      addressingMode: 'pn',
      members: [
        { phone: own, admin: 'superadmin' },
        { phone: first!, admin: null },
      ],
    });
    const { transport } = await link(own);
    let opened = 0;
    transport.on('connection', (u) => {
      if (u.state === 'open') opened++;
    });
    // Offline: the connection drops, and the group grows without a notification reaching it.
    expect(emulator.drop(own)).toBe(1);
    group.members.push({ phone: late!, admin: null });
    emulator.world.account(late!);
    await waitFor('the reconnect', async () => opened === 1 && transport.state === 'open', 60_000, 50);
    await transport.send(`${group.id}@g.us`, { kind: 'text', text: 'After growing' });
    for (const m of [first!, late!])
      await waitFor(`${m} to get it`, async () => inboxOf(m, 'After growing').length === 1, 30_000, 50);
  });

  it('a contact that keeps asking for a message again gets it at most twice, also across a reconnect (msgRetryCounterCache kept by the account); the retry given up is reported once, as the cause of its being undelivered', async () => {
    const own = '919800010011';
    const [contact] = members('9198120111', 1);
    emulator.world.account(contact!);
    const { transport } = await link(own);
    let opened = 0;
    transport.on('connection', (u) => {
      if (u.state === 'open') opened++;
    });
    const causes: UndeliveredCause[] = [];
    transport.on('undelivered-cause', (c) => causes.push(c));
    const { messageId } = await transport.send(`${contact}@s.whatsapp.net`, {
      kind: 'text',
      text: 'Ask again',
    });
    await waitFor(
      'the contact to get it',
      async () => inboxOf(contact!, 'Ask again').length === 1,
      30_000,
      50,
    );
    let resent = 0;
    const stop = emulator.watch((conn, node) => {
      if (conn.account?.phone === own && node.tag === 'message' && node.attrs.id === messageId) resent++;
    });
    const askThrice = async (from: number) => {
      for (let count = from; count < from + 3; count++) {
        // rc14 acks a receipt once it handled it, after any resend (Socket/messages-recv.js
        // handleReceipt: receiptMutex, then sendMessageAck in its finally).
        const handled = emulator.nextNode(
          (conn, n) =>
            conn.account?.phone === own &&
            n.tag === 'ack' &&
            n.attrs.class === 'receipt' &&
            n.attrs.type === 'retry' &&
            n.attrs.id === messageId,
          30_000,
        );
        emulator.retryReceipt(own, { id: messageId, from: `${contact}@s.whatsapp.net`, count });
        await handled;
      }
    };
    await askThrice(1);
    // rc14 counts a retry twice (handleReceipt and sendMessagesAgain) against maxMsgRetryCount 5.
    await waitFor('two resends', async () => resent === 2, 30_000, 50);
    // The third retry receipt is the one rc14 no longer answers: the transport says so.
    await waitFor('the retries given up', async () => causes.length === 1, 30_000, 50);
    expect(causes).toEqual([{ cause: 'decrypt-gave-up', messageIds: [messageId] }]);
    expect(emulator.drop(own)).toBe(1);
    await waitFor('the reconnect', async () => opened === 1 && transport.state === 'open', 60_000, 50);
    // The three acks came: rc14 handled each receipt without sending the message again.
    await askThrice(4);
    stop();
    expect(resent).toBe(2);
    expect(causes).toHaveLength(1);
  });

  it('after a restart, sends to known contacts ask WhatsApp for no device list and fetch no keys', async () => {
    const r = await sendsBeforeAndAfterRestart(emulator, {
      own: '919800010003',
      contacts: members('9198120103', 4),
    });
    open.push(...r.transports);
    expect(r.before.deviceQueries).toBeGreaterThanOrEqual(4);
    const { deviceQueries, keyFetches } = r.after;
    expect({ deviceQueries, keyFetches }).toEqual({ deviceQueries: 0, keyFetches: 0 });
  });

  it('five sends in a row to one contact issue the privacy token once, it is in the stored keys, and a send after a restart issues none (once per 7-day bucket)', async () => {
    const own = '919800010007';
    const [contact] = members('9198120107', 1);
    const chat = `${contact!}@s.whatsapp.net`;
    emulator.world.account(contact!);
    const { transport, auth, restart } = await link(own);
    let issued = 0;
    const stop = emulator.watch((conn, node) => {
      if (conn.account?.phone === own && node.tag === 'iq' && iqKey(node) === 'privacy set tokens') issued++;
    });
    const texts = [1, 2, 3, 4, 5].map((i) => `Token send ${i}`);
    for (const text of texts) await transport.send(chat, { kind: 'text', text });
    await waitFor('the contact to get all five', async () =>
      texts.every((t) => inboxOf(contact!, t).length === 1),
    );
    // Each send's issue iq leaves right after its message (rc14 relayMessage, after sendNode).
    expect(issued).toBe(1);
    // rc14 writes the issue time (senderTimestamp) and its index of tokens once the iq is answered.
    const stored = await waitFor(
      'the issued token in the stored keys',
      async () => {
        const index = await auth.read('tctoken-__index');
        const jids: string[] = index
          ? JSON.parse(Buffer.from(JSON.parse(index, BufferJSON.reviver).token).toString())
          : [];
        const entries = await Promise.all(jids.map((j) => auth.read(`tctoken-${j}`)));
        return entries
          .map((e) => (e ? JSON.parse(e, BufferJSON.reviver) : null))
          .find((e) => e?.senderTimestamp);
      },
      10_000,
    );
    expect(stored.senderTimestamp).toBeGreaterThan(Date.now() / 1000 - 600);

    const again = await restart();
    open.push(again);
    await again.send(chat, { kind: 'text', text: 'Token send after the restart' });
    await waitFor(
      'the contact to get it',
      async () => inboxOf(contact!, 'Token send after the restart').length === 1,
    );
    stop();
    expect(issued).toBe(1);
  });

  it('a message the account sent is sent again on a retry after a reconnect, though nothing stored its copy (a send past SEND_TIMEOUT_MS gets no outcome, so no copy from the engine)', async () => {
    const own = '919800010002';
    const [contact] = members('9198120102', 1);
    emulator.world.account(contact!);
    const { transport, copies } = await link(own);
    let opened = 0;
    transport.on('connection', (u) => {
      if (u.state === 'open') opened++;
    });
    const { messageId } = await transport.send(`${contact}@s.whatsapp.net`, { kind: 'text', text: 'Kept' });
    await waitFor('the contact to get it', async () => inboxOf(contact!, 'Kept').length === 1, 30_000, 50);
    // The storage port holds nothing: the engine keeps a copy only with an outcome.
    expect(copies.size).toBe(0);
    // rc14's own copy (MessageRetryManager) lives with its socket.
    expect(emulator.drop(own)).toBe(1);
    await waitFor('the reconnect', async () => opened === 1 && transport.state === 'open', 60_000, 50);
    let resent = 0;
    const stop = emulator.watch((conn, node) => {
      if (conn.account?.phone === own && node.tag === 'message' && node.attrs.id === messageId) resent++;
    });
    emulator.retryReceipt(own, { id: messageId, from: `${contact}@s.whatsapp.net`, count: 1 });
    await waitFor('the resend', async () => resent === 1, 30_000, 50);
    stop();
    // The phone keeps one message per sender and id (wa-emulator/src/acceptance.ts): the copy sent
    // again on its retry receipt is the same message, not a second one.
    expect(inboxOf(contact!, 'Kept')).toHaveLength(1);
  });

  it('accounts that start together log in one after another, about 2 a second with jitter', async () => {
    const phones = members('9198000107', 4);
    const rigs = [];
    for (const p of phones) rigs.push(await link(p));
    for (const { transport } of rigs) await transport.close();
    // When each login starts (the transport's 'connecting', emitted as its slot comes) and when
    // the emulator first hears from each account.
    const started = new Map<string, number>();
    for (const [i, { transport }] of rigs.entries()) {
      transport.on('connection', (u) => {
        if (u.state === 'connecting' && !started.has(phones[i]!)) started.set(phones[i]!, Date.now());
      });
    }
    const heard = new Set<string>();
    const stop = emulator.watch((conn) => {
      const phone = conn.account?.phone;
      if (phone && phones.includes(phone)) heard.add(phone);
    });
    // A node starting: every account connects at once.
    await Promise.all(rigs.map(({ transport }) => transport.connect()));
    await waitFor('every login', async () => heard.size === phones.length, 30_000, 20);
    stop();
    const times = [...started.values()].sort((a, b) => a - b);
    expect(times).toHaveLength(phones.length);
    // 500 ms apart on average, each gap 0.5 to 1.5 times that, counted from when the previous
    // login started (a timer may fire late on a busy machine, never early; 2 ms for rounding).
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(248);
    expect(times.at(-1)! - times[0]!).toBeLessThanOrEqual(3 * 750 + 5_000);
  });

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
