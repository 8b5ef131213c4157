import type { GroupMetadata } from 'baileys';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type AccountRunner, startAccountRunner, type TransportBuilder } from '../../src/accounts/runner.ts';
import { groupLookup } from '../../src/accounts/transports.ts';
import { accounts, waGroups } from '../../src/db/schema.ts';
import { type Dispatcher, startDispatcher } from '../../src/messaging/engine/dispatcher.ts';
import { startOutcomeBatches } from '../../src/messaging/outcome-batches.ts';
import { createDbAuthStore } from '../../src/transport/auth-store.ts';
import {
  type BaileysOptions,
  BaileysTransport,
  type WaVersion,
} from '../../src/transport/baileys/transport.ts';
import { restrictionSteps } from '../../src/transport/restriction-steps.ts';
import { sentCopies } from '../../src/transport/sent-messages.ts';
import { buildUser, createTestApp, type DbKind, late, loginToken, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';
import { createAccount } from './accounts.ts';
import { type FakeSocket, fakeSocketMaker } from './baileys-socket.ts';
import { expectLedgerMatches } from './messaging.ts';

export const OWN_PN = '919876543210';
export const OWN_LID = '201234567890123';
export const LATEST_VERSION: [number, number, number] = [2, 3000, 1099999999];

/** A group as rc14's groupMetadata parses it (Socket/groups.js extractGroupMetadata: addressingMode always set). */
export function groupFixture(
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

export type BaileysRig = Awaited<ReturnType<typeof baileysRig>>;

/**
 * The product with the account runner driving BaileysTransport over fake rc14 sockets (and, with
 * `dispatch`, the dispatcher sending jobs through them).
 */
export async function baileysRig(
  kind: DbKind,
  options: { dispatch?: boolean; env?: Record<string, string>; transport?: Partial<BaileysOptions> } = {},
) {
  const maker = fakeSocketMaker();
  const transports = new Map<string, BaileysTransport>();
  /** Whose socket each is: another account's reconnect may make one between two of a test's. */
  const accountOf = new Map<FakeSocket, string>();
  // Kept like socket.ts fetchLatestVersion keeps it: looked up once, again after `forget` (a 405).
  let known: Promise<WaVersion | null> | null = null;
  const versions = {
    lookups: 0,
    latest() {
      if (!known) {
        versions.lookups++;
        known = Promise.resolve(LATEST_VERSION);
      }
      return known;
    },
    forget() {
      known = null;
    },
  };
  const builder: TransportBuilder = async (ctx, account) => {
    const tr = new BaileysTransport(account, {
      storage: {
        auth: createDbAuthStore(ctx.db, account.accountId),
        sentCopy: sentCopies(ctx.db, account.accountId),
        restrictionSteps: restrictionSteps(ctx.db, account.accountId),
      },
      log: ctx.log,
      groups: groupLookup(ctx, account.accountId),
      makeSocket: (config) => {
        const socket = maker.make(config);
        accountOf.set(maker.sockets[maker.sockets.length - 1]!, account.accountId);
        return socket;
      },
      inviteCodeSpacingMs: 100,
      backoffMs: 50,
      loginSpacingMs: 0,
      versions,
      onWhatsAppTtlMs: { found: 60_000, missing: 300 },
      groupRefetchDelayMs: 300,
      rateLimitPauseMs: 500,
      restrictionRetryMs: { first: 1500, max: 3000 },
      // Lookups one after the other but not 3 s apart (each send to a new number waited it): the
      // emulator suite's lookups.test.ts tests the spacing.
      lookupBatches: { ...ctx.config.lookupBatches, spacingMs: 0 },
      mediaUploadTimeoutMs: ctx.config.sendTimeoutMs,
      ...options.transport,
    });
    transports.set(account.accountId, tr);
    return tr;
  };
  const t: TestApp = await createTestApp(kind, {
    WA_PROVIDER: 'baileys',
    SESSION_LEASE_MS: '3000',
    ...options.env,
  });
  // The product's wiring of what the accounts receive (an opt-out keyword opts the sender out).
  const runner: AccountRunner = await startAccountRunner(t.ctx, builder);
  const outcomes = startOutcomeBatches(t.ctx, runner);
  const dispatcher: Dispatcher | null = options.dispatch
    ? await startDispatcher(t.ctx, runner, { pollMs: 200, sweepMs: 100 })
    : null;

  /** The sockets made for one account, in order. */
  const socketsOf = (accountId: string) => maker.sockets.filter((s) => accountOf.get(s) === accountId);

  const row = async (accountId: string) =>
    (await t.db.select().from(accounts).where(eq(accounts.accountId, accountId)))[0]!;

  /** Creates an instance for a new user (a user may have at most 10) and waits for its first socket. */
  async function start(name: string, user: { credits?: number } = {}) {
    const created = await buildUser(t, { credits: user.credits ?? 0, isBulkMessagingEnabled: true });
    const token = await loginToken(t.app, created.username);
    const from = maker.sockets.length;
    const accountId = await createAccount(t, token, { phoneNumber: OWN_PN, sessionName: name });
    // This account's first socket: an account of an earlier test may still be reconnecting.
    const first = await waitFor(
      'first socket',
      async () => maker.sockets.find((s, i) => i >= from && accountOf.get(s) === accountId),
      15_000,
    );
    return { accountId, first, index: maker.sockets.indexOf(first), token, user: created };
  }

  /** Pairs the first socket, restarts (515) and opens the second; resolves once CONNECTED. */
  async function pairAndOpen(accountId: string, s1: FakeSocket, index: number): Promise<FakeSocket> {
    s1.ev.emit('connection.update', { qr: 'QR-REF-1' });
    await waitFor('QR in DB', async () => (await row(accountId)).qr === 'QR-REF-1', 15_000);
    // Pairing: WhatsApp gives the creds an identity, then asks for a restart (515).
    s1.pairSuccess({ id: `${OWN_PN}:7@s.whatsapp.net`, lid: `${OWN_LID}:7@lid` });
    await waitFor('creds saved', async () => (await row(accountId)).hasCredentials, 15_000);
    s1.close(515, 'Stream Errored (restart required)');
    const s2 = await waitFor(
      'new socket after 515',
      async () => socketsOf(accountId).find((s) => maker.sockets.indexOf(s) > index),
      15_000,
    );
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
    // A group the socket reports after 'open' reaches the database through the account's one
    // queue of events (driver.ts run), behind an 'open' the transport would have passed on at once.
    const owned = '120363000000000003@g.us';
    s2.ev.emit('groups.upsert', [s2.groups[owned]]);
    await waitFor('the group reported after open', async () =>
      (await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId))).some(
        (g) => g.groupId === owned,
      ),
    );
    expect((await row(accountId)).status).not.toBe('CONNECTED');
    expect(runner.transportFor(accountId)).toBeUndefined();
    s2.flushLogin();
    await waitFor('CONNECTED', async () => (await row(accountId)).status === 'CONNECTED', 10_000);
    return s2;
  }

  async function close() {
    await dispatcher?.stop();
    await outcomes.stop();
    await runner.stop();
    await t.close();
  }

  /** A new user's instance, paired and open; its user is added to `users` (the ledger check's list). */
  async function connected(name: string, credits: number, users: Set<string>) {
    const s = await start(name, { credits });
    users.add(s.user.id);
    const sock = await pairAndOpen(s.accountId, s.first, s.index);
    return { ...s, sock };
  }

  return {
    t,
    runner,
    dispatcher,
    maker,
    transports,
    row,
    start,
    pairAndOpen,
    connected,
    close,
    socketsOf,
    versions,
  };
}

/**
 * For a describe block: a rig made before its tests and closed after them. What this returns reads
 * the rig of the time, so the block can take its parts apart when it is declared. The users that
 * `connected` makes must have ledgers that match their balances after each test.
 */
export function baileysRigFor(kind: DbKind, options: Parameters<typeof baileysRig>[1] = {}) {
  let rig: BaileysRig | undefined;
  const users = new Set<string>();
  beforeAll(async () => {
    rig = await baileysRig(kind, options);
  });
  afterAll(async () => {
    await rig?.close();
  });
  afterEach(() => expectLedgerMatches(now().t.db, users));
  const now = () => rig!;
  return {
    t: late(() => now().t),
    runner: late(() => now().runner),
    transports: late(() => now().transports),
    maker: late(() => now().maker),
    row: (accountId: string) => now().row(accountId),
    start: (...args: Parameters<BaileysRig['start']>) => now().start(...args),
    pairAndOpen: (...args: Parameters<BaileysRig['pairAndOpen']>) => now().pairAndOpen(...args),
    connected: (name: string, credits: number) => now().connected(name, credits, users),
    socketsOf: (accountId: string) => now().socketsOf(accountId),
    versionLookups: () => now().versions.lookups,
  };
}
