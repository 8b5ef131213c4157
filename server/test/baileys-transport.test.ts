import { proto } from 'baileys';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waAuthState, waGroups, waSentMessages } from '../src/db/schema.ts';
import { type SessionRunner, startSessionRunner } from '../src/sessions/runner.ts';
import { pruneSentMessages } from '../src/transport/sent-messages.ts';
import type { QuotaUpdate, ReceiptUpdate, SendFailure } from '../src/transport/types.ts';
import { type BaileysRig, baileysRig, LATEST_VERSION, OWN_LID, OWN_PN } from './fakes/baileys-rig.ts';
import { createInstance, statusOf, waitFor } from './fakes/sessions.ts';
import { bearer, buildUser, createTestApp, DB_KINDS, loginToken, type TestApp } from './helpers.ts';

describe.each(DB_KINDS)('Baileys transport driven by a fake socket on %s', (kind) => {
  let rig: BaileysRig;
  let t: TestApp;
  let runner: SessionRunner;
  let token: string;
  let transports: BaileysRig['transports'];
  beforeAll(async () => {
    rig = await baileysRig(kind);
    ({ t, runner, transports } = rig);
  });
  afterAll(async () => {
    await rig.close();
  });

  const row = (sessionId: string) => rig.row(sessionId);

  async function start(name: string) {
    const started = await rig.start(name);
    token = started.token;
    return started;
  }

  const pairAndOpen = (sessionId: string, s1: Parameters<BaileysRig['pairAndOpen']>[1], index: number) =>
    rig.pairAndOpen(sessionId, s1, index);

  it('qr → open → close 515 → reconnect → close 401 → credentials wiped', async () => {
    const { sessionId, first, index } = await start('Pairing');
    expect(first.config.markOnlineOnConnect).toBe(false);
    expect(first.config.syncFullHistory).toBe(false);
    // RECENT history refused: rc14 then goes online without holding a first connection's events
    // for 20 s (Socket/chats.js); the bootstrap with the LID mappings is still processed.
    const wants = (syncType: proto.HistorySync.HistorySyncType) =>
      first.config.shouldSyncHistoryMessage!(proto.Message.HistorySyncNotification.create({ syncType }));
    expect(wants(proto.HistorySync.HistorySyncType.RECENT)).toBe(false);
    expect(wants(proto.HistorySync.HistorySyncType.FULL)).toBe(false);
    // The bootstrap is read in pieces by the transport (history.ts), not inflated whole by rc14.
    expect(wants(proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP)).toBe(false);
    expect(typeof first.config.cachedGroupMetadata).toBe('function');
    expect(typeof first.config.getMessage).toBe('function');

    const s2 = await pairAndOpen(sessionId, first, index);
    // The dropped socket keeps none of our handlers (rc14's ev.removeAllListeners takes one event).
    expect(first.ev.listenerCount('creds.update') + first.ev.listenerCount('connection.update')).toBe(0);
    // The socket announces the WhatsApp Web version looked up (Utils/generics.js fetchLatestWaWebVersion).
    expect(s2.config.version).toEqual(LATEST_VERSION);
    const connected = await row(sessionId);
    expect(connected).toMatchObject({
      ownJid: `${OWN_PN}:7@s.whatsapp.net`,
      ownLid: `${OWN_LID}:7@lid`,
      qr: null,
    });
    expect((await statusOf(t, token, sessionId)).connected).toBe(true);

    // One full group fetch into the cache; invite codes only for the two admin groups, spaced.
    await waitFor(async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.sessionId, sessionId));
      return rows.length === 3 && rows.filter((r) => r.inviteCode).length === 2;
    });
    expect(s2.inviteCalls.map((c) => c.groupId).sort()).toEqual([
      '120363000000000001@g.us',
      '120363000000000003@g.us',
    ]);
    expect(Math.abs(s2.inviteCalls[1]!.at - s2.inviteCalls[0]!.at)).toBeGreaterThanOrEqual(90);
    const list = (
      await t.app.inject({ method: 'GET', url: `/api/groupChats/${sessionId}`, headers: bearer(token) })
    ).json();
    const member = list.groups.find((g: { groupName: string }) => g.groupName === 'Member only');
    expect(member.groupLink).toBeNull();
    const admin = list.groups.find((g: { groupName: string }) => g.groupName === 'Admins here');
    expect(admin.groupLink).toBe('https://chat.whatsapp.com/CODE120363');
    expect(admin.owner).toBe(OWN_PN);
    expect(admin.participants.map((p: { phoneNumber: string }) => p.phoneNumber)).toEqual([
      OWN_PN,
      '919811111111',
      '919822222222',
    ]);

    // The cache answers Baileys' cachedGroupMetadata.
    const cached = await s2.config.cachedGroupMetadata!('120363000000000001@g.us');
    expect(cached?.subject).toBe('Admins here');
    expect(cached?.participants).toHaveLength(3);
    expect(cached?.addressingMode).toBe('lid');
    // A phone-number group stays one (Baileys assumes 'lid' without it: undecryptable for its members).
    const pnGroup = await s2.config.cachedGroupMetadata!('120363000000000002@g.us');
    expect(pnGroup).toMatchObject({ addressingMode: 'pn', ephemeralDuration: 604_800 });
    // A group whose mode is not known: undefined, so that Baileys fetches it.
    await t.db
      .update(waGroups)
      .set({ addressingMode: null })
      .where(eq(waGroups.groupId, '120363000000000003@g.us'));
    expect(await s2.config.cachedGroupMetadata!('120363000000000003@g.us')).toBeUndefined();

    // A signal key written through the cacheable store lands in the database.
    await s2.config.auth.keys.set({ session: { 'abc.0': Buffer.from([5, 6]) } });
    await waitFor(async () =>
      (await t.db.select().from(waAuthState).where(eq(waAuthState.sessionId, sessionId))).some(
        (r) => r.key === 'session-abc.0',
      ),
    );

    // The account left a group: a refresh removes it from the cache and keeps the invite codes.
    delete s2.groups['120363000000000002@g.us'];
    const refresh = await t.app.inject({
      method: 'GET',
      url: `/api/groupsList/${sessionId}?refresh=1`,
      headers: bearer(token),
    });
    expect(refresh.statusCode).toBe(200);
    await waitFor(async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.sessionId, sessionId));
      return rows.length === 2 && rows.every((r) => r.inviteCode);
    });

    // The phone unlinks the device.
    s2.close(401, 'Connection Failure');
    await waitFor(async () => (await row(sessionId)).status === 'DISCONNECTED', 15_000, 'DISCONNECTED');
    const after = await row(sessionId);
    expect(after).toMatchObject({
      statusReason: 'Logged out from the phone',
      hasCredentials: false,
      desiredState: 'stopped',
      ownerNode: null,
    });
    expect(await t.db.select().from(waAuthState).where(eq(waAuthState.sessionId, sessionId))).toEqual([]);
    // A late credentials update of the unlinked socket does not bring the credentials back.
    s2.ev.emit('creds.update', { me: s2.config.auth.creds.me });
    await new Promise((r) => setTimeout(r, 300));
    expect(await t.db.select().from(waAuthState).where(eq(waAuthState.sessionId, sessionId))).toEqual([]);
    expect(rig.socketsOf(sessionId)).toHaveLength(2);
  });

  it('402 (with its end time) and 406 are bans: final, DISCONNECTED, no reconnect', async () => {
    const temp = await start('Temporarily banned');
    temp.first.close(402, 'Connection Failure', {
      reason: '402',
      expire: String(Date.UTC(2030, 0, 2, 3, 4) / 1000),
    });
    await waitFor(async () => (await row(temp.sessionId)).status === 'DISCONNECTED', 15_000);
    expect(await row(temp.sessionId)).toMatchObject({
      statusReason: 'Banned by WhatsApp until 2030-01-02 03:04 UTC',
      desiredState: 'stopped',
    });
    const banned = await start('Banned for good');
    banned.first.close(406, 'Connection Failure', { reason: '406' });
    await waitFor(async () => (await row(banned.sessionId)).status === 'DISCONNECTED', 15_000);
    expect(await row(banned.sessionId)).toMatchObject({
      statusReason: 'Banned by WhatsApp',
      desiredState: 'stopped',
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(rig.socketsOf(banned.sessionId)).toHaveLength(1);
    expect((await statusOf(t, token, banned.sessionId)).statusReason).toBe('Banned by WhatsApp');
  });

  it('405 says the client version was rejected and does not retry the same version for ever', async () => {
    const { sessionId, first } = await start('Old version');
    first.close(405, 'Connection Failure', { reason: '405' });
    await waitFor(async () => (await row(sessionId)).status === 'DISCONNECTED', 10_000);
    expect((await row(sessionId)).statusReason).toBe(
      'WhatsApp rejected this client version: update the console or set WA_VERSION',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(rig.socketsOf(sessionId)).toHaveLength(1);
  });

  it('offline notifications that come before open (the server answered during the login queries) still open it at once', async () => {
    // rc14 Socket/socket.js handles CB:ib,,offline whenever it arrives; CB:success emits 'open' only
    // after its prekey count, passive and digest queries, so the flag can come first (the
    // emulator suite showed it). It used to leave the session PENDING for the 30 s fallback.
    const { sessionId, first } = await start('Offline first');
    first.user = { id: `${OWN_PN}:7@s.whatsapp.net` };
    const started = Date.now();
    first.ev.emit('connection.update', { receivedPendingNotifications: true });
    first.ev.emit('connection.update', { connection: 'open' });
    await waitFor(async () => (await row(sessionId)).status === 'CONNECTED', 10_000, 'CONNECTED');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a connection that opens and drops at once keeps its backoff growing and fetches the groups once', async () => {
    const { sessionId, first } = await start('Unstable');
    let sock = first;
    for (let i = 0; i < 4; i++) {
      sock.user = { id: `${OWN_PN}:7@s.whatsapp.net` };
      sock.ev.emit('connection.update', { connection: 'open' });
      sock.ev.emit('connection.update', { receivedPendingNotifications: true });
      // The first open fetches the groups (asynchronously: wait for it on a busy machine); the
      // opens that follow within 10 minutes must not.
      if (i === 0) await waitFor(async () => sock.groupFetches >= 1, 15_000, 'first group fetch');
      else await new Promise((r) => setTimeout(r, 20));
      sock.close(408, 'Connection was lost');
      sock = await waitFor(async () => rig.socketsOf(sessionId)[i + 1], 15_000, `socket ${i + 2}`);
    }
    const made = rig.socketsOf(sessionId).map((s) => s.createdAt);
    const gaps = made.slice(1).map((at, i) => at - made[i]!);
    // backoffMs 50 doubled per attempt with ±30 % jitter: the 4th wait is at least 400 * 0.7.
    expect(gaps[3]).toBeGreaterThanOrEqual(280);
    const fetches = rig.socketsOf(sessionId).reduce((n, s) => n + s.groupFetches, 0);
    expect(fetches).toBe(1);
  });

  it('403 marks the session banned; 440 reconnects four times in a row, then stays down', async () => {
    const banned = await start('Banned');
    banned.first.close(403, 'Connection Failure');
    await waitFor(async () => (await row(banned.sessionId)).status === 'DISCONNECTED', 15_000);
    expect(await row(banned.sessionId)).toMatchObject({
      statusReason: 'Banned: WhatsApp refused this account (403)',
      desiredState: 'stopped',
    });
    expect((await statusOf(t, token, banned.sessionId)).statusReason).toMatch(/Banned/);

    // A 440 is another connection with these credentials: after a lease moved, the old owner's
    // socket, which lets go within a lease (close-policy.ts MAX_REPLACED_IN_A_ROW).
    const replaced = await start('Replaced');
    for (let i = 0; i < 4; i++) {
      rig.socketsOf(replaced.sessionId)[i]!.close(440, 'Stream Errored (conflict)');
      await waitFor(
        async () => rig.socketsOf(replaced.sessionId)[i + 1],
        15_000,
        `reconnect after 440 #${i + 1}`,
      );
      expect((await row(replaced.sessionId)).statusReason).toMatch(
        /replaced this one \(440\)\. Reconnecting/,
      );
    }
    rig.socketsOf(replaced.sessionId)[4]!.close(440, 'Stream Errored (conflict)');
    await waitFor(async () => (await row(replaced.sessionId)).status === 'DISCONNECTED', 15_000);
    expect((await row(replaced.sessionId)).statusReason).toMatch(/440\)\. Restart to take it back/);
    await new Promise((r) => setTimeout(r, 300));
    expect(rig.socketsOf(replaced.sessionId)).toHaveLength(5);
  });

  it('408 and 503 reconnect with a new socket after a backoff', async () => {
    const { sessionId, first } = await start('Flaky');
    const closedAt = Date.now();
    first.close(408, 'Connection was lost');
    const second = await waitFor(async () => rig.socketsOf(sessionId)[1], 15_000, 'reconnect after 408');
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(30);
    expect((await row(sessionId)).statusReason).toBe('Connection lost (408): Connection was lost');
    second.close(503, 'Service unavailable');
    await waitFor(async () => rig.socketsOf(sessionId)[2], 15_000, 'reconnect after 503');
    const status = await row(sessionId);
    expect(status.status).toBe('PENDING');
    expect(status.desiredState).toBe('active');
  });

  it('sends to the JID WhatsApp answers for a number (Brazil 9th digit, Mexico 52 1), and a "not on WhatsApp" expires', async () => {
    const { sessionId, first, index } = await start('Canonical');
    const s2 = await pairAndOpen(sessionId, first, index);
    const transport = runner.transportFor(sessionId)!;
    s2.canonical['5511987654321'] = '551187654321@s.whatsapp.net';
    s2.canonical['5215512345678'] = '525512345678@s.whatsapp.net';
    const sent = await transport.send('5511987654321@s.whatsapp.net', { kind: 'text', text: 'Olá' });
    expect(s2.sent.at(-1)?.jid).toBe('551187654321@s.whatsapp.net');
    expect(sent.chatId).toBe('551187654321@s.whatsapp.net');
    // A batch: the answers name no input, so the numbers left unpaired are asked one at a time.
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
    // The number joins WhatsApp: the negative answer is not kept for ever (300 ms in this test).
    s2.joined.add('919866660000');
    expect((await transport.onWhatsApp(['919866660000'])).get('919866660000')).toBeNull();
    await new Promise((r) => setTimeout(r, 400));
    expect((await transport.onWhatsApp(['919866660000'])).get('919866660000')).toBe(
      '919866660000@s.whatsapp.net',
    );
  });

  it("a group's last message: wrappers unwrapped; reactions, deletions and stubs do not replace it", async () => {
    const { sessionId, first, index } = await start('Last message');
    const s2 = await pairAndOpen(sessionId, first, index);
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
      (await t.db.select().from(waGroups).where(eq(waGroups.sessionId, sessionId))).find(
        (g) => g.groupId === group,
      )?.lastMessage;
    upsert('D1', 1_900_000_000, {
      message: {
        documentWithCaptionMessage: { message: { documentMessage: { caption: 'The price list' } } },
      },
    });
    await waitFor(async () => (await last())?.body === 'The price list', 15_000, 'captioned document');
    upsert('R1', 1_900_000_010, { message: { reactionMessage: { text: '👍', key: { id: 'D1' } } } });
    upsert('P1', 1_900_000_020, { message: { protocolMessage: { type: 0, key: { id: 'D1' } } } });
    upsert('S1', 1_900_000_030, {
      messageStubType: 27,
      messageStubParameters: ['919833333333@s.whatsapp.net'],
    });
    upsert('V1', 1_900_000_040, {
      message: { viewOnceMessageV2: { message: { imageMessage: { caption: 'Look once' } } } },
    });
    await waitFor(async () => (await last())?.body === 'Look once', 15_000, 'view-once caption');
    expect((await last())?.timestamp).toBe(1_900_000_040);
  });

  it('participant changes go into the cache at once and are confirmed by one query; 429 on a send waits', async () => {
    const { sessionId, first, index } = await start('Busy group');
    const s2 = await pairAndOpen(sessionId, first, index);
    const group = '120363000000000002@g.us';
    const members = async () =>
      (await t.db.select().from(waGroups).where(eq(waGroups.sessionId, sessionId))).find(
        (g) => g.groupId === group,
      )!;
    await waitFor(async () => (await members())?.participants.length === 3, 15_000, 'groups cached');
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
      async () => {
        const g = await members();
        return (
          g.isAdmin &&
          g.participants.some((p) => p.phoneNumber === '919855555555') &&
          g.participants.length === 3
        );
      },
      3000,
      'the changes in the cache',
    );
    expect(s2.metadataQueries).toEqual([]);
    // One confirming query for the three events, after they calmed down.
    await waitFor(async () => s2.metadataQueries.length === 1, 10_000, 'one metadata query');
    await new Promise((r) => setTimeout(r, 400));
    expect(s2.metadataQueries).toEqual([group]);

    // 429 rate-overlimit on a send: nothing sent, the account waits, then sends again.
    const transport = runner.transportFor(sessionId)!;
    s2.nextSendError = { code: 429, text: 'rate-overlimit' };
    const limited = await transport
      .send('919822222222@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e) => e);
    expect(limited).toMatchObject({ code: 'rate-limited', retriesLater: true, pausesSession: false });
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

  it('sent messages are kept 14 days: older rows are pruned, newer stay', async () => {
    const { sessionId } = await start('Prune');
    const day = 24 * 3_600_000;
    await t.db.insert(waSentMessages).values([
      {
        sessionId,
        messageId: 'OLD',
        chatId: 'x@s.whatsapp.net',
        message: '{}',
        createdAt: new Date(Date.now() - 15 * day),
      },
      {
        sessionId,
        messageId: 'RECENT',
        chatId: 'x@s.whatsapp.net',
        message: '{}',
        createdAt: new Date(Date.now() - 13 * day),
      },
    ]);
    expect(await pruneSentMessages(t.db)).toBeGreaterThanOrEqual(1);
    const left = await t.db.select().from(waSentMessages).where(eq(waSentMessages.sessionId, sessionId));
    expect(left.map((r) => r.messageId)).toEqual(['RECENT']);
  });

  it('send: resolves without an ack; a later 463 is reported and pauses until the time WhatsApp gives; quota; receipts and last messages flow', async () => {
    const { sessionId, first, index } = await start('Sender');
    const s2 = await pairAndOpen(sessionId, first, index);
    const transport = runner.transportFor(sessionId)!;
    expect(transport).toBe(transports.get(sessionId));

    const receipts: ReceiptUpdate[] = [];
    transport.on('receipt', (r) => receipts.push(r));
    const ok = await transport.send('919822222222@s.whatsapp.net', { kind: 'text', text: 'Hello' });
    expect(ok.messageId).toBe(`3EB0FAKE${s2.sent.length}`);
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
      sessionId,
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

    // A send is done when sendMessage resolves: rc14 sends no SERVER_ACK (Utils/generics.js),
    // so a send that waited for one took the full wait on every message.
    const failures: SendFailure[] = [];
    const quotas: QuotaUpdate[] = [];
    transport.on('send-failed', (f) => failures.push(f));
    transport.on('quota', (q) => quotas.push(q));
    const ends = Math.floor(Date.now() / 1000) + 3600;
    s2.reachout = { is_active: true, time_enforcement_ends: String(ends) };
    s2.nextAckError = '463';
    const restricted = await transport.send('919833333333@s.whatsapp.net', { kind: 'text', text: 'x' });
    expect(restricted.messageId).toBe(`3EB0FAKE${s2.sent.length}`);
    // The 463 arrives after: reported for that message id, and the transport asks until when.
    // Until WhatsApp answers, new chats wait the first growing pause (restrictions.ts); its answer replaces it.
    await waitFor(
      async () => failures.length === 1 && quotas.some((q) => q.until?.getTime() === ends * 1000),
      15_000,
      '463 reported',
    );
    expect(failures[0]).toEqual({
      messageId: restricted.messageId,
      code: 'restricted',
      reason: 'Paused: WhatsApp restricted this account from starting new chats (error 463)',
    });
    expect(s2.reachoutQueries).toBe(1);
    expect(quotas.at(-1)).toEqual({
      capped: true,
      reason: 'Paused: WhatsApp restricted this account from starting new chats (error 463)',
      until: new Date(ends * 1000),
    });
    await waitFor(async () => (await row(sessionId)).sendPausedUntil?.getTime() === ends * 1000, 15_000);
    expect((await row(sessionId)).sendPaused).toBe(true);
    const listed = (
      await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) })
    ).json().sessions[0];
    expect(listed).toMatchObject({
      sendPaused: true,
      sendPausedUntil: new Date(ends * 1000).toISOString(),
      statusReason: 'Paused: WhatsApp restricted this account from starting new chats (error 463)',
    });

    // The same error merged into our own buffered upsert (Utils/event-buffer.js) is seen as well, once.
    const merged = await transport.send('919833333334@s.whatsapp.net', { kind: 'text', text: 'x' });
    const mergedError = {
      key: { id: merged.messageId, remoteJid: '919833333334@s.whatsapp.net', fromMe: true },
      status: 0,
      messageStubParameters: ['479'],
    };
    s2.ev.emit('messages.upsert', { type: 'append', messages: [mergedError] });
    s2.ev.emit('messages.update', [
      { key: mergedError.key, update: { status: 0, messageStubParameters: ['479'] } },
    ]);
    expect(failures.slice(1)).toEqual([
      { messageId: merged.messageId, code: 'unknown', reason: 'WhatsApp refused the message (error 479)' },
    ]);

    // WhatsApp lifts the timelock (Socket/messages-recv.js handleReachoutTimelockNotification).
    s2.notifyTimelock({ is_active: false });
    await waitFor(async () => !(await row(sessionId)).sendPaused, 15_000, 'pause lifted');
    expect((await row(sessionId)).sendPausedUntil).toBeNull();

    // The new-chat quota is CAPPED until the cycle's end.
    const cycleEnd = Math.floor(Date.now() / 1000) + 7200;
    s2.ev.emit('message-capping.update', {
      capping_status: 'CAPPED',
      cycle_end_timestamp: String(cycleEnd),
    });
    await waitFor(async () => (await row(sessionId)).sendPausedUntil?.getTime() === cycleEnd * 1000, 15_000);
    expect((await row(sessionId)).statusReason).toBe(
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
    await waitFor(async () => {
      const [g] = await t.db
        .select()
        .from(waGroups)
        .where(eq(waGroups.groupId, '120363000000000002@g.us'))
        .then((rows) => rows.filter((r) => r.sessionId === sessionId));
      return g?.lastMessage?.body === 'Latest news';
    });
    const chats = (
      await t.app.inject({ method: 'GET', url: `/api/groupChats/${sessionId}`, headers: bearer(token) })
    ).json();
    const g = chats.groups.find((x: { groupId: string }) => x.groupId === '120363000000000002@g.us');
    // The sender's LID is shown as the phone number the group knows for it.
    expect(g.lastMessage).toEqual({ sender: '919811111111', timestamp: 1_900_000_000, body: 'Latest news' });
  });
});

describe('Baileys transport with the real library and no network', () => {
  let t: TestApp;
  let runner: SessionRunner;
  beforeAll(async () => {
    t = await createTestApp('pglite', { WA_PROVIDER: 'baileys', SESSION_LEASE_MS: '3000' });
    runner = await startSessionRunner(t.ctx);
  });
  afterAll(async () => {
    await runner.stop();
    await t.close();
  });

  it('create-instance gives a clear reason in the status, never a crash', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const sessionId = await createInstance(t, token);
    const status = await waitFor(
      async () => {
        const s = await statusOf(t, token, sessionId);
        return s.statusReason ? s : undefined;
      },
      15_000,
      'a status reason',
    );
    expect(status.connected).toBe(false);
    expect(status.status).toBe('PENDING');
    expect(status.statusReason).toMatch(/^Cannot reach WhatsApp: /);
    const qr = await t.app.inject({ method: 'GET', url: `/api/${sessionId}/QR`, headers: bearer(token) });
    expect(qr.statusCode).toBe(404);
    expect(qr.json()).toEqual({ success: false, message: status.statusReason });
    // The runner keeps the session and retries; the API keeps answering.
    expect(runner.ownedSessionIds()).toContain(sessionId);
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
    expect(list.json().sessions[0].statusReason).toMatch(/^Cannot reach WhatsApp/);
  }, 30_000);
});
