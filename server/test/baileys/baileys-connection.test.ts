import { proto } from 'baileys';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountRunner, startAccountRunner } from '../../src/accounts/runner.ts';
import { waAuthState, waGroups } from '../../src/db/schema.ts';
import { createAccount, statusOf } from '../fakes/accounts.ts';
import { baileysRigFor, LATEST_VERSION, OWN_LID, OWN_PN } from '../fakes/baileys-rig.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** An account's connection as rc14 reports it: pairing, opening, and what each close code does. */
describe.each(DB_KINDS)('Baileys connection and close codes, driven by a fake socket on %s', (kind) => {
  const rig = baileysRigFor(kind);
  const { t, row, pairAndOpen } = rig;
  let token: string;

  async function start(name: string) {
    const started = await rig.start(name);
    token = started.token;
    return started;
  }

  /**
   * The account given up for good: its lease is released after its transport was closed
   * (driver.ts stop), and a closed transport opens no socket, so the sockets counted after this
   * are all it will ever have.
   */
  const released = (accountId: string) =>
    waitFor(
      'the lease released',
      async () => {
        const r = await row(accountId);
        return r.ownerNode === null && r.desiredState === 'stopped';
      },
      15_000,
    );

  it('qr → open → close 515 → reconnect → close 401 → credentials wiped', async () => {
    const { accountId, first, index } = await start('Pairing');
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

    const s2 = await pairAndOpen(accountId, first, index);
    // The dropped socket keeps none of our handlers (rc14's ev.removeAllListeners takes one event).
    expect(first.ev.listenerCount('creds.update') + first.ev.listenerCount('connection.update')).toBe(0);
    // The socket announces the WhatsApp Web version looked up (Utils/generics.js fetchLatestWaWebVersion).
    expect(s2.config.version).toEqual(LATEST_VERSION);
    const connected = await row(accountId);
    expect(connected).toMatchObject({
      ownJid: `${OWN_PN}:7@s.whatsapp.net`,
      ownLid: `${OWN_LID}:7@lid`,
      qr: null,
    });
    expect((await statusOf(t, token, accountId)).connected).toBe(true);

    // One full group fetch into the cache; invite codes only for the two admin groups, spaced.
    await waitFor('three groups, two with invite codes', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
      return rows.length === 3 && rows.filter((r) => r.inviteCode).length === 2;
    });
    expect(s2.inviteCalls.map((c) => c.groupId).sort()).toEqual([
      '120363000000000001@g.us',
      '120363000000000003@g.us',
    ]);
    expect(Math.abs(s2.inviteCalls[1]!.at - s2.inviteCalls[0]!.at)).toBeGreaterThanOrEqual(90);
    const list = (
      await t.app.inject({ method: 'GET', url: `/api/groupChats/${accountId}`, headers: bearer(token) })
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
    await waitFor('the stored Signal session', async () =>
      (await t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId))).some(
        (r) => r.key === 'session-abc.0',
      ),
    );

    // The account left a group: a refresh removes it from the cache and keeps the invite codes.
    delete s2.groups['120363000000000002@g.us'];
    const refresh = await t.app.inject({
      method: 'GET',
      url: `/api/groupsList/${accountId}?refresh=1`,
      headers: bearer(token),
    });
    expect(refresh.statusCode).toBe(200);
    await waitFor('two groups with invite codes', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
      return rows.length === 2 && rows.every((r) => r.inviteCode);
    });

    // The phone unlinks the device.
    s2.close(401, 'Connection Failure');
    await waitFor('DISCONNECTED', async () => (await row(accountId)).status === 'DISCONNECTED', 15_000);
    const after = await row(accountId);
    expect(after).toMatchObject({
      statusReason: 'Logged out from the phone',
      hasCredentials: false,
      desiredState: 'stopped',
      ownerNode: null,
    });
    expect(await t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId))).toEqual([]);
    // A late credentials update of the unlinked socket does not bring the credentials back: nobody
    // listens to it any more, so the emit below writes nothing.
    expect(s2.ev.listenerCount('creds.update')).toBe(0);
    s2.ev.emit('creds.update', { me: s2.config.auth.creds.me });
    expect(await t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId))).toEqual([]);
    await released(accountId);
    expect(rig.socketsOf(accountId)).toHaveLength(2);
  });

  it('402 (with its end time) and 406 are bans: final, DISCONNECTED, no reconnect', async () => {
    const temp = await start('Temporarily banned');
    temp.first.close(402, 'Connection Failure', {
      reason: '402',
      expire: String(Date.UTC(2030, 0, 2, 3, 4) / 1000),
    });
    await waitFor(
      'DISCONNECTED (temporary ban)',
      async () => (await row(temp.accountId)).status === 'DISCONNECTED',
      15_000,
    );
    expect(await row(temp.accountId)).toMatchObject({
      statusReason: 'Banned by WhatsApp until 2030-01-02 03:04 UTC',
      desiredState: 'stopped',
    });
    const banned = await start('Banned for good');
    banned.first.close(406, 'Connection Failure', { reason: '406' });
    await waitFor(
      'DISCONNECTED (ban)',
      async () => (await row(banned.accountId)).status === 'DISCONNECTED',
      15_000,
    );
    expect(await row(banned.accountId)).toMatchObject({
      statusReason: 'Banned by WhatsApp',
      desiredState: 'stopped',
    });
    await released(banned.accountId);
    expect(rig.socketsOf(banned.accountId)).toHaveLength(1);
    expect((await statusOf(t, token, banned.accountId)).statusReason).toBe('Banned by WhatsApp');
  });

  it('a ban stays final when the lease loop passes while the transport is still closing', async () => {
    const { accountId, first } = await start('Slow close');
    // The driver forgets the account as it starts to stop, and writes its last word (DISCONNECTED,
    // desired state 'stopped') as it releases the lease after the close: a pass in between
    // released the lease itself, the last word found it gone, and the pass claimed it again.
    const transport = rig.transports.get(accountId)!;
    const close = transport.close.bind(transport);
    transport.close = async () => {
      await rig.runner.poke();
      await close();
    };
    first.close(406, 'Connection Failure', { reason: '406' });
    await released(accountId);
    expect(await row(accountId)).toMatchObject({
      status: 'DISCONNECTED',
      statusReason: 'Banned by WhatsApp',
      desiredState: 'stopped',
    });
    await rig.runner.poke();
    expect(rig.socketsOf(accountId)).toHaveLength(1);
  });

  it('405 says the client version was rejected and does not retry the same version for ever', async () => {
    const { accountId, first } = await start('Old version');
    const lookups = rig.versionLookups();
    first.close(405, 'Connection Failure', { reason: '405' });
    await waitFor(
      'DISCONNECTED (client version)',
      async () => (await row(accountId)).status === 'DISCONNECTED',
      15_000,
    );
    expect((await row(accountId)).statusReason).toBe(
      'WhatsApp rejected this client version: update the console or set WA_VERSION',
    );
    await released(accountId);
    expect(rig.socketsOf(accountId)).toHaveLength(1);
    // The user restarts it: the new socket looks the version up again, not the refused one kept for an hour.
    const restart = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/restart`,
      headers: bearer(token),
    });
    expect(restart.statusCode).toBe(200);
    await waitFor('socket after the restart', async () => rig.socketsOf(accountId)[1], 15_000);
    expect(rig.versionLookups()).toBe(lookups + 1);
  });

  it('offline notifications that come before open (the server answered during the login queries) still open it at once', async () => {
    // rc14 Socket/socket.js handles CB:ib,,offline whenever it arrives; CB:success emits 'open' only
    // after its prekey count, passive and digest queries, so the flag can come first (the
    // emulator suite showed it). It used to leave the account PENDING for the 30 s fallback.
    const { accountId, first } = await start('Offline first');
    first.user = { id: `${OWN_PN}:7@s.whatsapp.net` };
    const started = Date.now();
    first.ev.emit('connection.update', { receivedPendingNotifications: true });
    first.ev.emit('connection.update', { connection: 'open' });
    await waitFor('CONNECTED', async () => (await row(accountId)).status === 'CONNECTED', 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a connection that opens and drops at once keeps its backoff growing and fetches the groups once', async () => {
    const { accountId, first } = await start('Unstable');
    let sock = first;
    for (let i = 0; i < 4; i++) {
      sock.user = { id: `${OWN_PN}:7@s.whatsapp.net` };
      sock.ev.emit('connection.update', { connection: 'open' });
      sock.ev.emit('connection.update', { receivedPendingNotifications: true });
      // The first open fetches the groups (asynchronously: wait for it on a busy machine); the
      // opens that follow within 10 minutes must not.
      if (i === 0) await waitFor('first group fetch', async () => sock.groupFetches >= 1, 15_000);
      else await new Promise((r) => setTimeout(r, 20));
      sock.close(408, 'Connection was lost');
      sock = await waitFor(`socket ${i + 2}`, async () => rig.socketsOf(accountId)[i + 1], 15_000);
    }
    const made = rig.socketsOf(accountId).map((s) => s.createdAt);
    const gaps = made.slice(1).map((at, i) => at - made[i]!);
    // backoffMs 50 doubled per attempt with ±30 % jitter: the 4th wait is at least 400 * 0.7.
    expect(gaps[3]).toBeGreaterThanOrEqual(280);
    const fetches = rig.socketsOf(accountId).reduce((n, s) => n + s.groupFetches, 0);
    expect(fetches).toBe(1);
  });

  it('403 marks the session banned; 440 reconnects four times in a row, then stays down', async () => {
    const banned = await start('Banned');
    banned.first.close(403, 'Connection Failure');
    await waitFor(
      'DISCONNECTED (403)',
      async () => (await row(banned.accountId)).status === 'DISCONNECTED',
      15_000,
    );
    expect(await row(banned.accountId)).toMatchObject({
      statusReason: 'Banned: WhatsApp refused this account (403)',
      desiredState: 'stopped',
    });
    expect((await statusOf(t, token, banned.accountId)).statusReason).toMatch(/Banned/);

    // A 440 is another connection with these credentials: after a lease moved, the old owner's
    // socket, which lets go within a lease (close-policy.ts MAX_REPLACED_IN_A_ROW).
    const replaced = await start('Replaced');
    for (let i = 0; i < 4; i++) {
      rig.socketsOf(replaced.accountId)[i]!.close(440, 'Stream Errored (conflict)');
      await waitFor(
        `reconnect after 440 #${i + 1}`,
        async () => rig.socketsOf(replaced.accountId)[i + 1],
        15_000,
      );
      expect((await row(replaced.accountId)).statusReason).toMatch(
        /replaced this one \(440\)\. Reconnecting/,
      );
    }
    rig.socketsOf(replaced.accountId)[4]!.close(440, 'Stream Errored (conflict)');
    await waitFor(
      'DISCONNECTED (440)',
      async () => (await row(replaced.accountId)).status === 'DISCONNECTED',
      15_000,
    );
    expect((await row(replaced.accountId)).statusReason).toMatch(/440\)\. Restart to take it back/);
    await released(replaced.accountId);
    expect(rig.socketsOf(replaced.accountId)).toHaveLength(5);
  });

  it('408 and 503 reconnect with a new socket after a backoff', async () => {
    const { accountId, first } = await start('Flaky');
    const closedAt = Date.now();
    first.close(408, 'Connection was lost');
    const second = await waitFor('reconnect after 408', async () => rig.socketsOf(accountId)[1], 15_000);
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(30);
    expect((await row(accountId)).statusReason).toBe('Connection lost (408): Connection was lost');
    second.close(503, 'Service unavailable');
    await waitFor('reconnect after 503', async () => rig.socketsOf(accountId)[2], 15_000);
    const status = await row(accountId);
    expect(status.status).toBe('PENDING');
    expect(status.desiredState).toBe('active');
  });
});

describe('Baileys transport with the real library and no network', () => {
  const t = testAppFor('pglite', { WA_PROVIDER: 'baileys', SESSION_LEASE_MS: '3000' });
  let runner: AccountRunner;
  beforeAll(async () => {
    runner = await startAccountRunner(t.ctx);
  });
  afterAll(async () => {
    await runner.stop();
  });

  it('create-instance gives a clear reason in the status, never a crash', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await createAccount(t, token);
    const status = await waitFor(
      'a status reason',
      async () => {
        const s = await statusOf(t, token, accountId);
        return s.statusReason ? s : undefined;
      },
      15_000,
    );
    expect(status.connected).toBe(false);
    expect(status.status).toBe('PENDING');
    expect(status.statusReason).toMatch(/^Cannot reach WhatsApp: /);
    const qr = await t.app.inject({ method: 'GET', url: `/api/${accountId}/QR`, headers: bearer(token) });
    expect(qr.statusCode).toBe(404);
    expect(qr.json()).toEqual({ success: false, message: status.statusReason });
    // The runner keeps the account and retries; the API keeps answering.
    expect(runner.ownedAccountIds()).toContain(accountId);
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
    expect(list.json().sessions[0].statusReason).toMatch(/^Cannot reach WhatsApp/);
  }, 30_000);
});
