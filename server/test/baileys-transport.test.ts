import type { GroupMetadata } from 'baileys';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waAuthState, waGroups, waSentMessages, waSessions } from '../src/db/schema.ts';
import { type SessionRunner, startSessionRunner, type TransportBuilder } from '../src/sessions/runner.ts';
import { groupLookup } from '../src/sessions/transports.ts';
import { createDbAuthStore } from '../src/transport/auth-store.ts';
import { BaileysTransport } from '../src/transport/baileys/transport.ts';
import { pruneSentMessages } from '../src/transport/sent-messages.ts';
import type { ReceiptUpdate } from '../src/transport/types.ts';
import { type FakeSocket, fakeSocketMaker } from './fakes/baileys-socket.ts';
import { createInstance, statusOf, waitFor } from './fakes/sessions.ts';
import { bearer, buildUser, createTestApp, DB_KINDS, loginToken, type TestApp } from './helpers.ts';

const OWN_PN = '919876543210';
const OWN_LID = '201234567890123';

/** A group as rc14's groupMetadata parses it (Socket/groups.js extractGroupMetadata: addressingMode always set). */
function groupFixture(
  id: string,
  subject: string,
  ownAdmin: 'admin' | 'superadmin' | null,
  addressingMode: 'pn' | 'lid' = 'lid',
  ephemeralDuration?: number,
): GroupMetadata {
  return {
    id,
    subject,
    addressingMode: addressingMode as GroupMetadata['addressingMode'],
    ...(ephemeralDuration ? { ephemeralDuration } : {}),
    owner: `${OWN_LID}@lid`,
    creation: 1_700_000_000,
    announce: false,
    participants: [
      // The account appears by its LID only: it must still be recognised as admin.
      { id: `${OWN_LID}@lid`, phoneNumber: `${OWN_PN}@s.whatsapp.net`, admin: ownAdmin },
      { id: '300000000000001@lid', phoneNumber: '919811111111@s.whatsapp.net', admin: 'superadmin' },
      { id: '919822222222@s.whatsapp.net', admin: null },
    ],
  };
}

const LATEST_VERSION: [number, number, number] = [2, 3000, 1099999999];

describe.each(DB_KINDS)('Baileys transport driven by a fake socket on %s', (kind) => {
  let t: TestApp;
  let runner: SessionRunner;
  let token: string;
  const maker = fakeSocketMaker();
  const transports = new Map<string, BaileysTransport>();
  const builder: TransportBuilder = async (ctx, session) => {
    const tr = new BaileysTransport(session, {
      db: ctx.db,
      auth: createDbAuthStore(ctx.db, session.sessionId),
      log: ctx.log,
      groups: groupLookup(ctx, session.sessionId),
      makeSocket: maker.make,
      inviteCodeSpacingMs: 100,
      backoffMs: 50,
      ackWaitMs: 1000,
      fetchVersion: async () => LATEST_VERSION,
      onWhatsAppTtlMs: { found: 60_000, missing: 300 },
      groupRefetchDelayMs: 300,
      rateLimitPauseMs: 500,
    });
    transports.set(session.sessionId, tr);
    return tr;
  };
  beforeAll(async () => {
    t = await createTestApp(kind, { WA_PROVIDER: 'baileys', SESSION_LEASE_MS: '3000' });
    runner = await startSessionRunner(t.ctx, builder);
    const user = await buildUser(t);
    token = await loginToken(t.app, user.username);
  });
  afterAll(async () => {
    await runner.stop();
    await t.close();
  });

  const row = async (sessionId: string) =>
    (await t.db.select().from(waSessions).where(eq(waSessions.sessionId, sessionId)))[0]!;

  /** Creates an instance and waits for its first socket. */
  async function start(name: string): Promise<{ sessionId: string; first: FakeSocket; index: number }> {
    // A user of its own per instance (a user may have at most 10).
    token = await loginToken(t.app, (await buildUser(t)).username);
    const index = maker.sockets.length;
    const sessionId = await createInstance(t, token, { phoneNumber: OWN_PN, sessionName: name });
    const first = await waitFor(async () => maker.sockets[index], 15_000, 'first socket');
    return { sessionId, first, index };
  }

  async function pairAndOpen(sessionId: string, s1: FakeSocket, index: number): Promise<FakeSocket> {
    s1.ev.emit('connection.update', { qr: 'QR-REF-1' });
    await waitFor(async () => (await row(sessionId)).qr === 'QR-REF-1', 15_000, 'QR in DB');
    // Pairing: WhatsApp gives the creds an identity, then asks for a restart (515).
    s1.config.auth.creds.me = { id: `${OWN_PN}:7@s.whatsapp.net`, lid: `${OWN_LID}:7@lid` };
    s1.ev.emit('creds.update', { me: s1.config.auth.creds.me });
    await waitFor(async () => (await row(sessionId)).hasCredentials, 15_000, 'creds saved');
    s1.close(515, 'Stream Errored (restart required)');
    const s2 = await waitFor(async () => maker.sockets[index + 1], 15_000, 'new socket after 515');
    expect(s2).not.toBe(s1);
    expect(s2.config.auth.creds.me?.id).toBe(`${OWN_PN}:7@s.whatsapp.net`);
    s2.user = { id: `${OWN_PN}:7@s.whatsapp.net`, lid: `${OWN_LID}:7@lid` };
    s2.groups = {
      '120363000000000001@g.us': groupFixture('120363000000000001@g.us', 'Admins here', 'admin'),
      '120363000000000002@g.us': groupFixture('120363000000000002@g.us', 'Member only', null, 'pn', 604_800),
      '120363000000000003@g.us': groupFixture('120363000000000003@g.us', 'Owned', 'superadmin'),
    };
    // Open, but rc14 still buffers the login's events: nothing is sent before receivedPendingNotifications.
    s2.open();
    await new Promise((r) => setTimeout(r, 200));
    expect((await row(sessionId)).status).not.toBe('CONNECTED');
    expect(runner.transportFor(sessionId)).toBeUndefined();
    s2.flushLogin();
    await waitFor(async () => (await row(sessionId)).status === 'CONNECTED', 10_000, 'CONNECTED');
    return s2;
  }

  it('qr → open → close 515 → reconnect → close 401 → credentials wiped', async () => {
    const { sessionId, first, index } = await start('Pairing');
    expect(first.config.markOnlineOnConnect).toBe(false);
    expect(first.config.syncFullHistory).toBe(false);
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
    expect(maker.sockets.length).toBe(index + 2);
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
    expect(maker.sockets.length).toBe(banned.index + 1);
    expect((await statusOf(t, token, banned.sessionId)).statusReason).toBe('Banned by WhatsApp');
  });

  it('405 says the client version was rejected and does not retry the same version for ever', async () => {
    const { sessionId, first, index } = await start('Old version');
    first.close(405, 'Connection Failure', { reason: '405' });
    await waitFor(async () => (await row(sessionId)).status === 'DISCONNECTED', 10_000);
    expect((await row(sessionId)).statusReason).toBe(
      'WhatsApp rejected this client version: update the console or set WA_VERSION',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(maker.sockets.length).toBe(index + 1);
  });

  it('a connection that opens and drops at once keeps its backoff growing and fetches the groups once', async () => {
    const { first, index } = await start('Unstable');
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
      sock = await waitFor(async () => maker.sockets[index + i + 1], 15_000, `socket ${i + 2}`);
    }
    const made = maker.sockets.slice(index, index + 5).map((s) => s.createdAt);
    const gaps = made.slice(1).map((at, i) => at - made[i]!);
    // backoffMs 50 doubled per attempt with ±30 % jitter: the 4th wait is at least 400 * 0.7.
    expect(gaps[3]).toBeGreaterThanOrEqual(280);
    const fetches = maker.sockets.slice(index, index + 5).reduce((n, s) => n + s.groupFetches, 0);
    expect(fetches).toBe(1);
  });

  it('403 marks the session banned and 440 does not reconnect', async () => {
    const banned = await start('Banned');
    banned.first.close(403, 'Connection Failure');
    await waitFor(async () => (await row(banned.sessionId)).status === 'DISCONNECTED', 15_000);
    expect(await row(banned.sessionId)).toMatchObject({
      statusReason: 'Banned: WhatsApp refused this account (403)',
      desiredState: 'stopped',
    });
    expect((await statusOf(t, token, banned.sessionId)).statusReason).toMatch(/Banned/);

    const replaced = await start('Replaced');
    replaced.first.close(440, 'Stream Errored (conflict)');
    await waitFor(async () => (await row(replaced.sessionId)).status === 'DISCONNECTED', 15_000);
    expect((await row(replaced.sessionId)).statusReason).toMatch(/440/);
    await new Promise((r) => setTimeout(r, 300));
    expect(maker.sockets.length).toBe(replaced.index + 1);
  });

  it('408 and 503 reconnect with a new socket after a backoff', async () => {
    const { sessionId, first, index } = await start('Flaky');
    const closedAt = Date.now();
    first.close(408, 'Connection was lost');
    const second = await waitFor(async () => maker.sockets[index + 1], 15_000, 'reconnect after 408');
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(30);
    expect((await row(sessionId)).statusReason).toBe('Connection lost (408): Connection was lost');
    second.close(503, 'Service unavailable');
    await waitFor(async () => maker.sockets[index + 2], 15_000, 'reconnect after 503');
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

  it('send: 463 pauses the session, not-on-WhatsApp fails, receipts and last messages flow', async () => {
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
    // getMessage answers from the stored sent messages.
    const stored = await s2.config.getMessage!({
      id: ok.messageId,
      remoteJid: '919822222222@s.whatsapp.net',
    });
    expect(stored?.conversation).toBe('x');

    const notOn = await transport
      .send('919800000000@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e) => e);
    expect(notOn).toMatchObject({ code: 'not-on-whatsapp', message: 'Not on WhatsApp' });

    s2.nextAckError = '463';
    const restricted = await transport
      .send('919833333333@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e) => e);
    expect(restricted).toMatchObject({ code: 'restricted', pausesSession: true });
    await waitFor(async () => (await row(sessionId)).sendPaused, 15_000, 'send paused');
    expect((await row(sessionId)).statusReason).toMatch(/463/);

    // The same 463 merged into our own buffered upsert (Utils/event-buffer.js) is seen as well.
    s2.receiptBeforeResolve = false;
    const sendMerged = transport
      .send('919833333334@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e) => e);
    await waitFor(
      async () => s2.sent.length > 0 && s2.sent.at(-1)!.jid === '919833333334@s.whatsapp.net',
      3000,
    );
    s2.ev.emit('messages.upsert', {
      type: 'append',
      messages: [
        {
          key: { id: `3EB0FAKE${s2.sent.length}`, remoteJid: '919833333334@s.whatsapp.net', fromMe: true },
          status: 0,
          messageStubParameters: ['463'],
        },
      ],
    });
    expect(await sendMerged).toMatchObject({ code: 'restricted' });

    s2.ev.emit('message-capping.update', { capping_status: 'CAPPED' });
    const capped = await transport
      .send('919844444444@s.whatsapp.net', { kind: 'text', text: 'x' })
      .catch((e) => e);
    expect(capped).toMatchObject({ code: 'capped', pausesSession: true });

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
