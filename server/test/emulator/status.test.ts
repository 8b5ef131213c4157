import { type BinaryNode, getBinaryNodeChild, getBinaryNodeChildren } from 'baileys';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATUS_MESSAGES } from '../../src/messaging/messages.ts';
import { waitFor } from '../wait.ts';
import { productOnEmulator } from './support/emulator-rig.ts';

const OWN = '919800000061';
const VIEWERS = ['919811111161', '919811111162'];
const QUIET = '919822222261';
/** On WhatsApp, but the server gives no LID for it (world.ts lidWithheld). */
const NO_LID = '919833333361';

/**
 * Status posts on the real Baileys socket: rc14 sends the post to status@broadcast
 * with `statusJidList` (one skmsg, the sender key pairwise to every device); each phone of the
 * audience decrypts it; the viewers' read receipts come back naming them, and only their rows
 * count as viewed.
 */
describe('a status post, against the emulator', () => {
  const { emulator, product, trace } = productOnEmulator((w) => {
    w.account(OWN, 'Emu shop');
    for (const p of [...VIEWERS, QUIET]) w.account(p);
    w.account(NO_LID).lidWithheld = true;
    w.statusViewers = new Set(VIEWERS);
  });
  let accountId = '';

  beforeAll(async () => {
    accountId = (await product.link(OWN, 'Status')).accountId;
  });

  /** The post's job once every phone has it (delivered) and the two viewers have viewed it. */
  const viewedByTwo = (jobId: string, ms: number) =>
    waitFor(
      'the views',
      async () => {
        const j = await product.job(jobId);
        return j.details.filter((d) => d.readAt).length === 2 && j.details.every((d) => d.deliveredAt)
          ? j
          : null;
      },
      ms,
      250,
    );

  /** A message to the three, awaited until sent: they are then "everyone messaged". */
  const messageEveryone = async (content: string) => {
    const hello = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [...VIEWERS, QUIET],
      content,
    });
    expect(hello.status, JSON.stringify(hello.json)).toBe(200);
    await waitFor(
      'the messages sent',
      async () => ((await product.job(hello.json.jobId)).status === 'completed' ? true : null),
      60_000,
      250,
    );
  };

  it('a text status to everyone messaged reaches each phone with its colour and font; viewed by 2 of 3', async () => {
    // Everyone messaged: first a message to the three.
    await messageEveryone('Hello from the shop');
    const credits = await product.credits();

    const post = await product.call('POST', `/api/session/${accountId}/sendStatus`, {
      type: 'text',
      content: 'Open on Sunday',
      backgroundColor: '#FF7A00',
      font: 8,
      audience: { everyoneMessaged: true },
    });
    expect(post.status, JSON.stringify(post.json)).toBe(200);
    expect(post.json.totalChats).toBe(3);
    expect(await product.credits()).toBe(credits - 3);

    for (const phone of [...VIEWERS, QUIET]) {
      const got = await waitFor(
        `the status on ${phone}`,
        async () => emulator.world.account(phone).inbox.find((m) => m.kind === 'status') ?? null,
        60_000,
        250,
      );
      expect(got.text).toBe('Open on Sunday');
      expect(got.chat).toBe('status@broadcast');
      // rc14's assertColor: a 6-digit hex gets FF alpha (Utils/messages.js).
      expect(got.message.extendedTextMessage?.backgroundArgb).toBe(0xffff7a00);
      expect(got.message.extendedTextMessage?.font).toBe(8);
    }

    // The account's own phone has it too, under "My status" (its number is added to statusJidList).
    expect(emulator.world.account(OWN).inbox.find((m) => m.kind === 'status')?.text).toBe('Open on Sunday');

    const job = await viewedByTwo(post.json.jobId, 60_000);
    expect(job.status).toBe('completed');
    expect(new Set(job.details.map((d) => d.status))).toEqual(new Set(['sent']));
    const viewed = job.details.filter((d) => d.readAt).map((d) => d.chatId.replace(/\D/g, ''));
    expect(viewed.sort()).toEqual([...VIEWERS].sort());
    const summary = (await product.call('GET', `/api/message-jobs-details/${post.json.jobId}?media=0`)).json
      .job;
    expect(summary.delivery.read).toBe(2);
    expect(summary.results.success).toBe(3);
  });

  it("receipts that come within rc14's event buffer window still count: one-to-one and status", async () => {
    // rc14 holds our own upsert 100 ms in its event buffer (Socket/chats.js upsertMessage is a
    // createBufferedFunction; Utils/event-buffer.js), and a receipt of that message arriving
    // meanwhile is merged into it (append: messages.update into its status, message-receipt.update
    // into its userReceipt) instead of being emitted: phones that answer at once.
    emulator.setReceiptTiming({ deliveredAfterMs: 0, readAfterMs: 5 });
    try {
      const hello = await product.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
        chatIds: [...VIEWERS, QUIET],
        content: 'Open on Monday too',
      });
      expect(hello.status, JSON.stringify(hello.json)).toBe(200);
      const texts = await waitFor(
        'the texts delivered and read',
        async () => {
          const j = await product.job(hello.json.jobId);
          return j.details.length === 3 && j.details.every((d) => d.readAt) ? j : null;
        },
        30_000,
        250,
      );
      expect(texts.details.every((d) => d.deliveredAt)).toBe(true);

      const post = await product.call('POST', `/api/session/${accountId}/sendStatus`, {
        type: 'text',
        content: 'Closed on Tuesday',
        audience: { everyoneMessaged: true },
      });
      expect(post.status, JSON.stringify(post.json)).toBe(200);
      const job = await viewedByTwo(post.json.jobId, 30_000);
      const viewed = job.details.filter((d) => d.readAt).map((d) => d.chatId.replace(/\D/g, ''));
      expect(viewed.sort()).toEqual([...VIEWERS].sort());
    } finally {
      emulator.setReceiptTiming({ deliveredAfterMs: 100, readAfterMs: 400 });
    }
  });

  it('a Status cut after the server relayed it, before its ack: sent after the reconnect under the same id; each phone has it once', async () => {
    // Everyone messaged: the three the first test wrote to (messaged once more here, so that this test stands alone).
    await messageEveryone('Hello again');
    const toStatus = (n: { tag: string; attrs: Record<string, string> }) =>
      n.tag === 'message' && n.attrs.to === 'status@broadcast';
    const ids: string[] = [];
    const stop = emulator.watch((_c, n) => {
      if (toStatus(n)) ids.push(n.attrs.id ?? '');
    });
    const cut = emulator.dropOnNext(OWN, toStatus, 'after');
    const post = await product.call('POST', `/api/session/${accountId}/sendStatus`, {
      type: 'text',
      content: 'Closed on Monday',
      audience: { everyoneMessaged: true },
    });
    expect(post.status, JSON.stringify(post.json)).toBe(200);
    await cut;
    const job = await waitFor(
      'the post sent',
      async () => {
        const j = await product.job(post.json.jobId);
        return j.status === 'completed' ? j : null;
      },
      120_000,
      250,
    );
    stop();
    expect(new Set(job.details.map((d) => d.status))).toEqual(new Set(['sent']));
    // The stanza went twice (before the cut, after the reconnect) under one id, which the phones keep once.
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(1);
    for (const phone of [...VIEWERS, QUIET])
      expect(
        emulator.world
          .account(phone)
          .inbox.filter((m) => m.kind === 'status' && m.text === 'Closed on Monday'),
        phone,
      ).toHaveLength(1);
  });

  it('one post to the whole audience under one id, each member addressed by LID; a retry receipt after a reconnect finds the kept copy', async () => {
    await messageEveryone('Hello once more');
    const posts: BinaryNode[] = [];
    const stop = emulator.watch((c, n) => {
      if (c.account?.phone === OWN && n.tag === 'message' && n.attrs.to === 'status@broadcast') posts.push(n);
    });
    const post = await product.call('POST', `/api/session/${accountId}/sendStatus`, {
      type: 'text',
      content: 'Sale on Friday',
      audience: { everyoneMessaged: true },
    });
    expect(post.status, JSON.stringify(post.json)).toBe(200);
    const job = await waitFor(
      'the post sent',
      async () => {
        const j = await product.job(post.json.jobId);
        return j.status === 'completed' ? j : null;
      },
      60_000,
      250,
    );
    expect(job.details.map((d) => d.status)).toEqual(['sent', 'sent', 'sent']);
    // One stanza for the whole audience, its participants the phones by LID (and the account's own).
    expect(posts).toHaveLength(1);
    const id = posts[0]!.attrs.id!;
    // Each device of them (bare here: rc14's extractDeviceJids keeps the account's own companion
    // when it is asked by LID, comparing the LID user with creds.me.lid, a whole JID).
    const to = getBinaryNodeChildren(getBinaryNodeChild(posts[0]!, 'participants'), 'to').map((t) =>
      (t.attrs.jid ?? '').replace(/:\d+@/, '@'),
    );
    const lidOf = (phone: string) => `${emulator.world.account(phone).lid}@lid`;
    expect(new Set(to)).toEqual(new Set([...VIEWERS, QUIET, OWN].map(lidOf)));
    for (const phone of [...VIEWERS, QUIET]) {
      const got = emulator.world.account(phone).inbox.filter((m) => m.text === 'Sale on Friday');
      expect(
        got.map((m) => [m.kind, m.id]),
        phone,
      ).toEqual([['status', id]]);
    }

    // rc14's own copy (MessageRetryManager) lives with its socket: after a reconnect only the kept one answers.
    expect(emulator.drop(OWN)).toBe(1);
    await waitFor('a new login', async () => emulator.connectionsOf(OWN).length === 1, 120_000, 250);
    await product.waitStatus(accountId, 'CONNECTED');
    posts.length = 0;
    emulator.retryReceipt(OWN, { id, from: 'status@broadcast', participant: lidOf(QUIET), count: 1 });
    // rc14 found the post (getMessage: without a copy it logs 'message not available' and sends
    // nothing) and relayed it again under its id. A phone's retry (device 0) is "re-sent to
    // everyone" (Socket/messages-recv.js sendMessagesAgain sendToAll), which for a Status is
    // relayMessage without statusJidList: no participants.
    await waitFor('the post sent again', async () => posts.length === 1, 30_000, 100);
    stop();
    expect(posts[0]!.attrs.id).toBe(id);
    // The phone keeps the post once (one sender, one id).
    expect(emulator.world.account(QUIET).inbox.filter((m) => m.text === 'Sale on Friday')).toHaveLength(1);
  });

  it('a member WhatsApp gives no LID for fails "no LID" and is refunded exactly; the others get the post', async () => {
    // The audience is a contact list: the four numbers, each on WhatsApp.
    const form = new FormData();
    form.append('name', 'Saturday');
    form.append('file', new Blob([[...VIEWERS, QUIET, NO_LID].join('\n')]), 'saturday.csv');
    const imported = await fetch(`${product.server!.url}/api/contact-lists/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${product.token}` },
      body: form,
    });
    expect(imported.status).toBe(200);
    const listId = ((await imported.json()) as { list: { id: string } }).list.id;
    const credits = await product.credits();

    const post = await product.call('POST', `/api/session/${accountId}/sendStatus`, {
      type: 'text',
      content: 'Open late on Saturday',
      audience: { contactListIds: [listId] },
    });
    expect(post.status, JSON.stringify(post.json)).toBe(200);
    expect(post.json.totalChats).toBe(4);
    const job = await waitFor(
      'every member settled',
      async () => {
        const j = await product.job(post.json.jobId);
        return j.details.every((d) => d.status === 'sent' || d.status === 'failed') ? j : null;
      },
      60_000,
      250,
    );
    const byPhone = Object.fromEntries(
      job.details.map((d) => [d.chatId.replace(/\D/g, ''), [d.status, d.error]]),
    );
    expect(byPhone).toEqual({
      ...Object.fromEntries([...VIEWERS, QUIET].map((p) => [p, ['sent', null]])),
      [NO_LID]: ['failed', STATUS_MESSAGES.noLid],
    });
    for (const phone of [...VIEWERS, QUIET])
      await waitFor(
        `the post on ${phone}`,
        async () => emulator.world.account(phone).inbox.some((m) => m.text === 'Open late on Saturday'),
        60_000,
        250,
      );
    expect(emulator.world.account(NO_LID).inbox.filter((m) => m.kind === 'status')).toEqual([]);

    // Four reserved, the one left out refunded: the job costs 3, in the ledger as on the balance.
    expect(await product.credits()).toBe(credits - 3);
    const ofJob = (await product.ledger()).filter((e) => e.jobId === post.json.jobId).map((e) => e.delta);
    expect(ofJob.sort((a, b) => a - b)).toEqual([-4, 1]);
  });

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
