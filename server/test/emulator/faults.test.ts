import { WaEmulator } from '@wa/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../wait.ts';
import { Product } from './support/product.ts';

const CONTACT = '919811111111';

/**
 * WhatsApp's faults, injected by the emulator on command, and how the product on the real
 * rc14 socket ends each (close-policy.ts; STACK.md "Baileys facts"). One product, one linked
 * instance per fault (the account is multi-session).
 */
describe('faults on command, through the real Baileys socket', () => {
  let emulator: WaEmulator;
  let product: Product;
  const trace: string[] = [];

  beforeAll(async () => {
    emulator = await WaEmulator.start({ log: (l) => trace.push(l) });
    emulator.world.account(CONTACT, 'Contact');
    product = new Product(emulator);
    await product.start();
  });

  afterAll(async () => {
    await product?.dispose();
    await emulator?.stop();
  });

  it('error 463 on a send: the recipient fails, one-to-one sends pause until the timelock ends, the contact got nothing', async () => {
    const own = '919800000463';
    const { accountId } = await product.link(own, '463');
    const until_ = new Date(Math.floor(Date.now() / 1000 + 3600) * 1000);
    emulator.restrictNewChats(own, until_);
    const before = await product.credits();
    const send = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [CONTACT],
      content: 'Refused by the server',
    });
    expect(send.status, JSON.stringify(send.json)).toBe(200);
    const job = await waitFor(
      'the recipient to fail',
      async () => {
        const j = await product.job(send.json.jobId);
        return j.details[0]?.status === 'failed' ? j : null;
      },
      120_000,
      500,
    );
    expect(job.details[0]!.error).toMatch(/error 463/);
    // The product asked until when (w:mex reach-out timelock) and shows it.
    const account = await waitFor(
      'the session paused until the timelock ends',
      async () => {
        const s = await product.account(accountId);
        return s?.sendPaused && s.sendPausedUntil === until_.toISOString() ? s : null;
      },
      60_000,
      500,
    );
    expect(account.statusReason).toMatch(/463/);
    expect(emulator.world.account(CONTACT).inbox.filter((m) => m.text === 'Refused by the server')).toEqual(
      [],
    );
    // A refused message is refunded.
    expect(await product.credits()).toBe(before);
  });

  it('error 463 holds back only new chats: a contact who wrote to the account (its privacy token) still gets its message', async () => {
    const own = '919800000464';
    const friend = '919811146401';
    const [stranger, another] = ['919811146402', '919811146403'];
    for (const phone of [friend, stranger, another]) emulator.world.account(phone);
    const { accountId } = await product.link(own, '463 tokens');
    // The friend writes first: its phone gives the account its privacy token (phone.ts issueToken).
    const tokenTaken = emulator.nextNode(
      (_c, n) => n.tag === 'ack' && n.attrs.class === 'notification' && n.attrs.type === 'privacy_token',
      60_000,
    );
    await emulator.phone(friend).say(own, 'Hi, send me the offer');
    await tokenTaken;
    emulator.restrictNewChats(own, new Date(Math.floor(Date.now() / 1000 + 3600) * 1000));
    const sendTo = async (chatIds: string[], content: string) => {
      const res = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
        chatIds,
        content,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.jobId as string;
    };
    const statusOf = async (jobId: string) =>
      Object.fromEntries(
        (await product.job(jobId)).details.map((d) => [d.chatId.replace(/\D/g, ''), d.status]),
      );
    // A new chat: 463, and the account's new chats are held.
    const first = await sendTo([stranger], 'The offer');
    await waitFor(
      'the new chat refused',
      async () => (await statusOf(first))[stranger] === 'failed',
      120_000,
      500,
    );
    await waitFor(
      'the pause',
      async () => (await product.account(accountId))?.sendPaused === true,
      60_000,
      250,
    );
    // The friend's chat carries its token: WhatsApp takes it; another new chat waits.
    const second = await sendTo([another, friend], 'The offer, as asked');
    await waitFor(
      'the friend’s message sent',
      async () => (await statusOf(second))[friend] === 'sent',
      120_000,
      500,
    );
    expect(await statusOf(second)).toEqual({ [friend]: 'sent', [another]: 'queued' });
    expect(emulator.world.account(friend).inbox.map((m) => m.text)).toContain('The offer, as asked');
    expect(emulator.world.account(another).inbox).toEqual([]);
  });

  it('a contact whose LID is known gets its next message addressed to its LID, as WhatsApp Web does', async () => {
    const own = '919800000465';
    const known = '919811146502';
    emulator.world.account(known);
    const { accountId } = await product.link(own, 'LID addressing');
    const sendTo = async (content: string) => {
      const res = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
        chatIds: [known],
        content,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.jobId as string;
    };
    const inbox = (text: string) =>
      emulator.world.account(known).inbox.filter((m) => m.kind === 'chat' && m.text === text);
    // The first message goes to the number; rc14's device query maps its LID.
    await sendTo('Hello from the shop');
    await waitFor('the first message', async () => inbox('Hello from the shop').length === 1, 120_000, 250);
    const knownLid = emulator.world.account(known).lid;
    const byLid = emulator.nextNode(
      (_c, n) => n.tag === 'message' && (n.attrs.to ?? '').startsWith(`${knownLid}@lid`),
      120_000,
    );
    const jobId = await sendTo('The offer');
    await byLid;
    const job = await waitFor(
      'the second message sent',
      async () => {
        const j = await product.job(jobId);
        return j.details[0]?.status === 'sent' ? j : null;
      },
      120_000,
      500,
    );
    // The chat the user sees is still the number.
    expect(job.details[0]).toMatchObject({ chatId: `${known}@s.whatsapp.net`, error: null });
    await waitFor('the offer', async () => inbox('The offer').length === 1, 30_000, 250);
  });

  it.each([[403, 'Banned: WhatsApp refused this account (403)']])(
    'stream error %i ends the session for good: %s',
    async (code, reason) => {
      const own = `9198000${String(code).padStart(5, '0')}`;
      const { accountId } = await product.link(own, `stream ${code}`);
      expect(emulator.streamError(own, code)).toBe(1);
      await product.waitReason(accountId, reason);
      // No reconnect: the close is final, and the transport is closed before the reason shows.
      expect(product.lastClose(accountId, reason)?.willReconnect).toBe(false);
      expect(emulator.connectionsOf(own)).toEqual([]);
    },
  );

  it('stream error 440 (conflict, rc14 Socket/socket.js CB:stream:error → 440): the account connects again and sends; the fifth in a row leaves it down', async () => {
    // The credentials live only in the product's database, so a 440 is the old
    // owner's socket after the account's lease moved to another node; it lets go within a lease.
    const own = '919800000440';
    const { accountId } = await product.link(own, 'stream 440');
    const conflict = { tag: 'conflict', attrs: { type: 'replaced' } };
    expect(emulator.streamError(own, 440, conflict)).toBe(1);
    const reconnecting =
      'Opened elsewhere: another connection of this account replaced this one (440). Reconnecting.';
    await product.waitReason(accountId, reconnecting);
    await waitFor('a new login', async () => emulator.connectionsOf(own).length === 1, 120_000, 250);
    await product.waitStatus(accountId, 'CONNECTED');
    const send = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [CONTACT],
      content: 'After the 440',
    });
    expect(send.status).toBe(200);
    await waitFor(
      'the contact to get it',
      async () =>
        emulator.world.account(CONTACT).inbox.find((m) => m.text === 'After the 440' && m.from === own),
      120_000,
      250,
    );
    // Replaced again and again (a second installation on the same database): down after the fifth.
    for (let i = 2; i <= 5; i++) {
      const [current] = emulator.connectionsOf(own);
      expect(emulator.streamError(own, 440, conflict)).toBe(1);
      if (i === 5) break;
      await product.waitReason(accountId, reconnecting);
      await waitFor(
        `login after 440 #${i}`,
        async () => {
          const conns = emulator.connectionsOf(own);
          return conns.length === 1 && conns[0] !== current;
        },
        60_000,
      );
      await product.waitStatus(accountId, 'CONNECTED');
    }
    const down =
      'Opened elsewhere: another WhatsApp Web session replaced this one (440). Restart to take it back.';
    await product.waitReason(accountId, down);
    expect(product.lastClose(accountId, down)?.willReconnect).toBe(false);
    expect(emulator.connectionsOf(own)).toEqual([]);
  });

  it.each([
    [402, { expire: '4102444800' }, 'Banned by WhatsApp until 2100-01-01 00:00 UTC'],
    [405, {}, 'WhatsApp rejected this client version: update the console or set WA_VERSION'],
    [406, {}, 'Banned by WhatsApp'],
  ])(
    'a login refused with failure %i (after a dropped connection) is final: %s',
    async (code, attrs, reason) => {
      const own = `9198001${String(code).padStart(5, '0')}`;
      const { accountId } = await product.link(own, `failure ${code}`);
      emulator.failNextLogin(own, code, attrs);
      // The network drops the socket; the product reconnects (backoff) and the server refuses the login.
      expect(emulator.drop(own)).toBe(1);
      await product.waitReason(accountId, reason);
      expect((await product.account(accountId))?.status).toBe('DISCONNECTED');
      // Final: the close is final, and the transport is closed before the reason shows.
      expect(product.lastClose(accountId, reason)?.willReconnect).toBe(false);
      expect(emulator.connectionsOf(own)).toEqual([]);
    },
  );

  it('a dropped connection reconnects by itself and sends again', async () => {
    const own = '919800000408';
    const { accountId } = await product.link(own, 'drop');
    expect(emulator.drop(own)).toBe(1);
    await waitFor('a new login', async () => emulator.connectionsOf(own).length === 1, 120_000, 250);
    await product.waitStatus(accountId, 'CONNECTED');
    const send = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [CONTACT],
      content: 'After the drop',
    });
    expect(send.status).toBe(200);
    await waitFor(
      'the contact to get it',
      async () =>
        emulator.world.account(CONTACT).inbox.find((m) => m.text === 'After the drop' && m.from === own),
      120_000,
      250,
    );
  });

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
