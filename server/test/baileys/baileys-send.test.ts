import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { waGroups, waSentMessages } from '../../src/db/schema.ts';
import { pruneSentMessages } from '../../src/transport/sent-messages.ts';
import type { QuotaUpdate, ReceiptUpdate, SendFailure } from '../../src/transport/types.ts';
import { baileysRigFor, OWN_LID, OWN_PN } from '../fakes/baileys-rig.ts';
import { bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** Sends, number lookups, groups and sent-message records through a connected account. */
describe.each(DB_KINDS)('Baileys sends, lookups and groups, driven by a fake socket on %s', (kind) => {
  const rig = baileysRigFor(kind);
  const { t, runner, transports, row, pairAndOpen } = rig;
  let token: string;

  async function start(name: string) {
    const started = await rig.start(name);
    token = started.token;
    return started;
  }

  it('sends to the JID WhatsApp answers for a number (Brazil 9th digit, Mexico 52 1), and a "not on WhatsApp" expires', async () => {
    const { accountId, first, index } = await start('Canonical');
    const s2 = await pairAndOpen(accountId, first, index);
    const transport = runner.transportFor(accountId)!;
    s2.canonical['5511987654321'] = '551187654321@s.whatsapp.net';
    s2.canonical['5215512345678'] = '525512345678@s.whatsapp.net';
    const sent = await transport.send('5511987654321@s.whatsapp.net', { kind: 'text', text: 'Olá' });
    expect(s2.sent.at(-1)?.jid).toBe('551187654321@s.whatsapp.net');
    expect(sent.chatId).toBe('551187654321@s.whatsapp.net');
    // A batch: each answer echoes the number it answers, so one query pairs them all, the
    // canonical JID and the "not on WhatsApp" too.
    const queries = s2.onWhatsAppQueries.length;
    const found = await transport.onWhatsApp([
      '5215512345678',
      '919822222222',
      '919866660000',
      '5491112345678',
    ]);
    expect(Object.fromEntries(found)).toEqual({
      '5215512345678': '525512345678@s.whatsapp.net',
      '919822222222': '919822222222@s.whatsapp.net',
      '919866660000': null,
      '5491112345678': '5491112345678@s.whatsapp.net',
    });
    expect(s2.onWhatsAppQueries.length - queries).toBe(1);
    // Answers that name no number: paired by their JIDs, the numbers left unpaired asked one at a time.
    s2.echoesQuery = false;
    s2.canonical['5511912345678'] = '551112345678@s.whatsapp.net';
    const before = s2.onWhatsAppQueries.length;
    const unnamed = await transport.onWhatsApp(['5511912345678', '919833333333', '919877770000']);
    expect(Object.fromEntries(unnamed)).toEqual({
      '5511912345678': '551112345678@s.whatsapp.net',
      '919833333333': '919833333333@s.whatsapp.net',
      '919877770000': null,
    });
    expect(s2.onWhatsAppQueries.length - before).toBe(4);
    s2.echoesQuery = true;
    // The number joins WhatsApp: the negative answer is not kept for ever (300 ms in this test).
    s2.joined.add('919866660000');
    expect((await transport.onWhatsApp(['919866660000'])).get('919866660000')).toBeNull();
    await waitFor(
      'the number found once its negative answer expired',
      async () =>
        (await transport.onWhatsApp(['919866660000'])).get('919866660000') === '919866660000@s.whatsapp.net',
      5000,
    );
  });

  it("a group's last message: wrappers unwrapped; reactions, deletions and stubs do not replace it", async () => {
    const { accountId, first, index } = await start('Last message');
    const s2 = await pairAndOpen(accountId, first, index);
    const group = '120363000000000001@g.us';
    const upsert = (id: string, at: number, extra: Record<string, unknown>) =>
      s2.ev.emit('messages.upsert', {
        type: 'notify',
        messages: [
          {
            key: { id, remoteJid: group, fromMe: false, participant: '919822222222@s.whatsapp.net' },
            messageTimestamp: at,
            ...extra,
          },
        ],
      });
    const last = async () =>
      (await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId))).find(
        (g) => g.groupId === group,
      )?.lastMessage;
    upsert('D1', 1_900_000_000, {
      message: {
        documentWithCaptionMessage: { message: { documentMessage: { caption: 'The price list' } } },
      },
    });
    await waitFor('captioned document', async () => (await last())?.body === 'The price list', 30_000);
    upsert('R1', 1_900_000_010, { message: { reactionMessage: { text: '👍', key: { id: 'D1' } } } });
    upsert('P1', 1_900_000_020, { message: { protocolMessage: { type: 0, key: { id: 'D1' } } } });
    upsert('S1', 1_900_000_030, {
      messageStubType: 27,
      messageStubParameters: ['919833333333@s.whatsapp.net'],
    });
    upsert('V1', 1_900_000_040, {
      message: { viewOnceMessageV2: { message: { imageMessage: { caption: 'Look once' } } } },
    });
    await waitFor('view-once caption', async () => (await last())?.body === 'Look once', 30_000);
    expect((await last())?.timestamp).toBe(1_900_000_040);
  });

  it('participant changes go into the cache at once and are confirmed by one query; 429 on a send waits', async () => {
    const { accountId, first, index } = await start('Busy group');
    const s2 = await pairAndOpen(accountId, first, index);
    const group = '120363000000000002@g.us';
    const members = async () =>
      (await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId))).find(
        (g) => g.groupId === group,
      )!;
    await waitFor('groups cached', async () => (await members())?.participants.length === 3, 15_000);
    // rc14 emits the change only (Types/Events.d.ts group-participants.update).
    const newcomer = { id: '919855555555@s.whatsapp.net', admin: null };
    s2.ev.emit('group-participants.update', {
      id: group,
      author: 'x',
      action: 'add',
      participants: [newcomer],
    });
    s2.ev.emit('group-participants.update', {
      id: group,
      author: 'x',
      action: 'promote',
      participants: [{ id: `${OWN_LID}@lid`, phoneNumber: `${OWN_PN}@s.whatsapp.net` }],
    });
    s2.ev.emit('group-participants.update', {
      id: group,
      author: 'x',
      action: 'remove',
      participants: [{ id: '919822222222@s.whatsapp.net' }],
    });
    await waitFor(
      'the changes in the cache',
      async () => {
        const g = await members();
        return (
          g.isAdmin &&
          g.participants.some((p) => p.phoneNumber === '919855555555') &&
          g.participants.length === 3
        );
      },
      3000,
    );
    expect(s2.metadataQueries).toEqual([]);
    // One confirming query for the three events, after they calmed down.
    await waitFor('one metadata query', async () => s2.metadataQueries.length === 1, 10_000);
    // A later change to another group is confirmed by a query of its own after the same delay: a
    // second query for the first three (set on the way to the first) would have come before it.
    const other = '120363000000000001@g.us';
    s2.ev.emit('groups.update', [{ id: other, subject: 'Admins here, renamed' }]);
    await waitFor('the later change confirmed', async () => s2.metadataQueries.includes(other), 10_000);
    expect(s2.metadataQueries).toEqual([group, other]);

    // 429 rate-overlimit on a send: nothing sent, the account waits, then sends again.
    const transport = runner.transportFor(accountId)!;
    s2.nextSendError = { code: 429, text: 'rate-overlimit' };
    const limited = await transport
      .send('919822222222@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e) => e);
    expect(limited).toMatchObject({ code: 'rate-limited', retriesLater: true, pausesAccount: false });
    const sentBefore = s2.sent.length;
    const waiting = await transport
      .send('919822222222@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e) => e);
    expect(waiting).toMatchObject({ code: 'rate-limited' });
    expect(s2.sent.length).toBe(sentBefore);
    await new Promise((r) => setTimeout(r, 600));
    await transport.send('919822222222@s.whatsapp.net', { kind: 'text', text: 'again' });
    expect(s2.sent.length).toBe(sentBefore + 1);
  });

  it('a group change rc14 never emitted (its buffer keeps the first of a group) is read from WhatsApp', async () => {
    const { accountId, first, index } = await start('Changed group');
    const s2 = await pairAndOpen(accountId, first, index);
    const group = '120363000000000003@g.us';
    const cached = async () =>
      (await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId))).find(
        (g) => g.groupId === group,
      );
    await waitFor('groups cached', async () => (await cached()) !== undefined, 15_000);
    expect((await cached())!.announce).toBe(false);
    // While the account was offline an admin renamed the group and then made it admins-only; rc14
    // buffered both notifications and emitted the rename alone (Utils/event-buffer.js).
    s2.groups[group] = { ...s2.groups[group]!, subject: 'Owned (admins)', announce: true };
    s2.ev.emit('groups.update', [{ id: group, subject: 'Owned (admins)' }]);
    await waitFor('the new name', async () => (await cached())?.subject === 'Owned (admins)', 3000);
    await waitFor('admins only, read again', async () => (await cached())?.announce === true, 10_000);
    expect(s2.metadataQueries).toEqual([group]);
  });

  it('sent messages are kept 14 days: older rows are pruned, newer stay', async () => {
    const { accountId } = await start('Prune');
    const day = 24 * 3_600_000;
    await t.db.insert(waSentMessages).values([
      {
        accountId,
        messageId: 'OLD',
        chatId: 'x@s.whatsapp.net',
        message: '{}',
        createdAt: new Date(Date.now() - 15 * day),
      },
      {
        accountId,
        messageId: 'RECENT',
        chatId: 'x@s.whatsapp.net',
        message: '{}',
        createdAt: new Date(Date.now() - 13 * day),
      },
    ]);
    expect(await pruneSentMessages(t.db)).toBeGreaterThanOrEqual(1);
    const left = await t.db.select().from(waSentMessages).where(eq(waSentMessages.accountId, accountId));
    expect(left.map((r) => r.messageId)).toEqual(['RECENT']);
  });

  it('send: resolves on the server’s ack; a 463 ack refuses it and pauses until the time WhatsApp gives; quota; receipts and last messages flow', async () => {
    const { accountId, first, index } = await start('Sender');
    const s2 = await pairAndOpen(accountId, first, index);
    const transport = runner.transportFor(accountId)!;
    expect(transport).toBe(transports.get(accountId));

    const receipts: ReceiptUpdate[] = [];
    transport.on('receipt', (r) => receipts.push(r));
    const ok = await transport.send('919822222222@s.whatsapp.net', { kind: 'text', text: 'Hello' });
    // The id given to rc14's sendMessage, which the server acked (acks.ts).
    expect(ok.messageId).toMatch(/^3EB0[0-9A-F]{18}$/);
    expect(s2.sent.at(-1)).toEqual({ jid: '919822222222@s.whatsapp.net', content: { text: 'Hello' } });
    s2.ev.emit('messages.update', [{ key: { id: ok.messageId, fromMe: true }, update: { status: 3 } }]);
    s2.ev.emit('message-receipt.update', [
      {
        key: { id: ok.messageId, fromMe: true },
        receipt: { userJid: 'x@lid', readTimestamp: 1_700_000_100 },
      },
    ]);
    expect(receipts.map((r) => [r.messageId, r.status])).toEqual([
      [ok.messageId, 'delivered'],
      [ok.messageId, 'read'],
    ]);
    // The send returns the message as Baileys sent it; the engine keeps it with the outcome
    // (dispatch-store.test.ts), and getMessage answers retry requests from there.
    expect(JSON.parse(ok.kept!)).toEqual({ conversation: 'x' });
    await t.db.insert(waSentMessages).values({
      accountId,
      messageId: ok.messageId,
      chatId: '919822222222@s.whatsapp.net',
      message: ok.kept!,
    });
    const stored = await s2.config.getMessage!({
      id: ok.messageId,
      remoteJid: '919822222222@s.whatsapp.net',
    });
    expect(stored?.conversation).toBe('x');

    const notOn = await transport
      .send('919800000000@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e) => e);
    expect(notOn).toMatchObject({ code: 'not-on-whatsapp', message: 'Not on WhatsApp' });

    // A send is done on the server's ack for its id; an ack with error 463 refuses it (the send
    // rejects, no second 'send-failed'), and the transport asks until when.
    const failures: SendFailure[] = [];
    const quotas: QuotaUpdate[] = [];
    transport.on('send-failed', (f) => failures.push(f));
    transport.on('quota', (q) => quotas.push(q));
    const ends = Math.floor(Date.now() / 1000) + 3600;
    s2.reachout = { is_active: true, time_enforcement_ends: String(ends) };
    s2.nextAckError = '463';
    const restricted = await transport
      .send('919833333333@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e: unknown) => e);
    expect(restricted).toMatchObject({
      code: 'restricted',
      message: 'Paused: WhatsApp restricted this account from starting new chats (error 463)',
    });
    // Until WhatsApp answers, new chats wait the first growing pause (restrictions.ts); its answer replaces it.
    await waitFor('463 timelock', async () => quotas.some((q) => q.until?.getTime() === ends * 1000), 15_000);
    expect(failures).toEqual([]);
    expect(s2.reachoutQueries).toBe(1);
    expect(quotas.at(-1)).toEqual({
      capped: true,
      reason: 'Paused: WhatsApp restricted this account from starting new chats (error 463)',
      until: new Date(ends * 1000),
    });
    await waitFor(
      'the pause until the timelock ends',
      async () => (await row(accountId)).sendPausedUntil?.getTime() === ends * 1000,
      15_000,
    );
    expect((await row(accountId)).sendPaused).toBe(true);
    const listed = (
      await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) })
    ).json().sessions[0];
    expect(listed).toMatchObject({
      sendPaused: true,
      sendPausedUntil: new Date(ends * 1000).toISOString(),
      statusReason: 'Paused: WhatsApp restricted this account from starting new chats (error 463)',
    });

    // A 479 ack: refused with its code and rc14's cause (handleBadAck smax-invalid).
    s2.nextAckError = '479';
    const stale = await transport
      .send('919833333335@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({
      code: 'unknown',
      message: 'WhatsApp refused the message (error 479: stale devices or mixed addressing)',
    });

    // An error of a message this transport did not send (another device of the account) merged
    // into rc14's buffered upsert (Utils/event-buffer.js) is reported as well, once.
    const mergedError = {
      key: { id: '3EB0OTHERDEVICE1', remoteJid: '919833333334@s.whatsapp.net', fromMe: true },
      status: 0,
      messageStubParameters: ['479'],
    };
    s2.ev.emit('messages.upsert', { type: 'append', messages: [mergedError] });
    s2.ev.emit('messages.update', [
      { key: mergedError.key, update: { status: 0, messageStubParameters: ['479'] } },
    ]);
    expect(failures).toEqual([
      {
        messageId: '3EB0OTHERDEVICE1',
        code: 'unknown',
        reason: 'WhatsApp refused the message (error 479: stale devices or mixed addressing)',
      },
    ]);

    // WhatsApp lifts the timelock (Socket/messages-recv.js handleReachoutTimelockNotification).
    s2.notifyTimelock({ is_active: false });
    await waitFor('pause lifted', async () => !(await row(accountId)).sendPaused, 15_000);
    expect((await row(accountId)).sendPausedUntil).toBeNull();

    // The new-chat quota is CAPPED until the cycle's end.
    const cycleEnd = Math.floor(Date.now() / 1000) + 7200;
    s2.ev.emit('message-capping.update', {
      capping_status: 'CAPPED',
      cycle_end_timestamp: String(cycleEnd),
    });
    await waitFor(
      'the pause until the cycle ends',
      async () => (await row(accountId)).sendPausedUntil?.getTime() === cycleEnd * 1000,
      15_000,
    );
    expect((await row(accountId)).statusReason).toBe(
      "Paused: WhatsApp's new-chat limit was reached for this cycle",
    );

    s2.ev.emit('messages.upsert', {
      type: 'notify',
      messages: [
        {
          key: {
            id: 'IN1',
            remoteJid: '120363000000000002@g.us',
            fromMe: false,
            participant: '300000000000001@lid',
          },
          messageTimestamp: 1_900_000_000,
          message: { extendedTextMessage: { text: 'Latest news' } },
        },
      ],
    });
    await waitFor('the group row', async () => {
      const [g] = await t.db
        .select()
        .from(waGroups)
        .where(eq(waGroups.groupId, '120363000000000002@g.us'))
        .then((rows) => rows.filter((r) => r.accountId === accountId));
      return g?.lastMessage?.body === 'Latest news';
    });
    const chats = (
      await t.app.inject({ method: 'GET', url: `/api/groupChats/${accountId}`, headers: bearer(token) })
    ).json();
    const g = chats.groups.find((x: { groupId: string }) => x.groupId === '120363000000000002@g.us');
    // The sender's LID is shown as the phone number the group knows for it.
    expect(g.lastMessage).toEqual({ sender: '919811111111', timestamp: 1_900_000_000, body: 'Latest news' });
  });
});
