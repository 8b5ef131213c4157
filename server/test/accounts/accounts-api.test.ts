import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountRunner, startAccountRunner } from '../../src/accounts/runner.ts';
import { accounts, waAuthState, waGroups } from '../../src/db/schema.ts';
import { connectedAccount, createAccount, statusOf } from '../fakes/accounts.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe.each(DB_KINDS)('sessions API with the simulator on %s', (kind) => {
  const t = testAppFor(kind, { SIMULATOR_LINK_AFTER_MS: '400', SESSION_LEASE_MS: '3000' });
  let runner: AccountRunner;
  beforeAll(async () => {
    runner = await startAccountRunner(t.ctx);
  });
  afterAll(async () => {
    await runner.stop();
  });

  const get = (token: string, url: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
  const post = (token: string, url: string, payload?: object) =>
    t.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });

  it('requires a token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/sessions' })).statusCode).toBe(401);
    const res = await t.app.inject({ method: 'POST', url: '/api/create-instance', payload: {} });
    expect(res.statusCode).toBe(401);
  });

  it('validates create-instance with the spec messages', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const noPhone = await post(token, '/api/create-instance', { phoneNumber: '  ', sessionName: 'Main' });
    expect(noPhone.statusCode).toBe(400);
    expect(noPhone.json()).toEqual({ success: false, message: 'Please enter a phone number' });
    const missingPhone = await post(token, '/api/create-instance', { sessionName: 'Main' });
    expect(missingPhone.json().message).toBe('Please enter a phone number');
    const noName = await post(token, '/api/create-instance', {
      phoneNumber: '919876543210',
      sessionName: '',
    });
    expect(noName.statusCode).toBe(400);
    expect(noName.json()).toEqual({ success: false, message: 'Please enter a session name' });
    expect((await get(token, '/api/sessions')).json().sessions).toEqual([]);
  });

  it('creates an instance, serves a QR PNG within 4 s, links after the QR was served', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const started = Date.now();
    const res = await post(token, '/api/create-instance', {
      phoneNumber: '+91 98765-43210',
      sessionName: 'Shop',
    });
    expect(res.statusCode).toBe(200);
    const { sessionId: accountId, message, success } = res.json();
    expect(success).toBe(true);
    expect(message).toMatch(/created/i);
    expect(accountId).toMatch(/^919876543210_[0-9a-f]{12}$/);

    const list = (await get(token, '/api/sessions')).json();
    expect(list.success).toBe(true);
    expect(list.sessions).toHaveLength(1);
    expect(list.sessions[0]).toMatchObject({
      sessionId: accountId,
      phoneNumber: '919876543210',
      sessionName: 'Shop',
      status: 'PENDING',
    });
    expect(new Date(list.sessions[0].createdAt).toISOString()).toBe(list.sessions[0].createdAt);
    expect(typeof list.sessions[0].id).toBe('string');

    const qr = await waitFor(
      'QR',
      async () => {
        const r = await get(token, `/api/${accountId}/QR?t=${Date.now()}`);
        return r.statusCode === 200 ? r : undefined;
      },
      4000,
    );
    expect(Date.now() - started).toBeLessThan(4000);
    expect(qr.headers['content-type']).toBe('image/png');
    expect(qr.rawPayload.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(await statusOf(t, token, accountId)).toEqual({
      success: true,
      connected: false,
      status: 'PENDING',
      statusReason: null,
    });
    // SIMULATOR_LINK_AFTER_MS after the first QR was served, the account links by itself.
    const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    expect(row!.qrServedAt).not.toBeNull();
    await waitFor('auto link', async () => (await statusOf(t, token, accountId)).connected, 3000);
    expect(await statusOf(t, token, accountId)).toMatchObject({ connected: true, status: 'CONNECTED' });
    const qrAfter = await get(token, `/api/${accountId}/QR`);
    expect(qrAfter.statusCode).toBe(404);
    expect(qrAfter.json()).toEqual({ success: false, message: 'Session is already connected' });
    const [linked] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    expect(linked).toMatchObject({ hasCredentials: true, ownJid: '919876543210@s.whatsapp.net', qr: null });
    expect(linked!.ownerNode).toBe(t.ctx.nodeId);
    expect(runner.transportFor(accountId)).toBeDefined();
  });

  it('answers 404 while no QR exists yet, and does not link before the QR is served', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    await runner.stop();
    try {
      const accountId = await createAccount(t, token);
      const res = await get(token, `/api/${accountId}/QR`);
      expect(res.statusCode).toBe(404);
      expect(res.json().success).toBe(false);
      expect(res.json().message).toMatch(/QR code is not ready/);
    } finally {
      runner = await startAccountRunner(t.ctx);
    }
    const accountId = (await get(token, '/api/sessions')).json().sessions[0].sessionId;
    await waitFor(
      'a stored QR',
      async () => (await t.db.select().from(accounts).where(eq(accounts.accountId, accountId)))[0]?.qr,
    );
    // A second account made later, whose QR is served: it links SIMULATOR_LINK_AFTER_MS after the
    // serve. Counted from its QR's creation instead, the first account would have linked before it.
    const later = await createAccount(t, token, { phoneNumber: '+91 98765 43211', sessionName: 'Later' });
    await waitFor('the later QR stored', async () =>
      (await t.db.select().from(accounts).where(eq(accounts.accountId, later)))[0]?.qr ? true : null,
    );
    expect((await get(token, `/api/${later}/QR`)).statusCode).toBe(200);
    await waitFor('the served account linked', async () =>
      (await statusOf(t, token, later)).status === 'CONNECTED' ? true : null,
    );
    expect((await statusOf(t, token, accountId)).status).toBe('PENDING');
  });

  it('enforces one instance for single-session users', async () => {
    const user = await buildUser(t, { isMultisessionSupported: false });
    const token = await loginToken(t.app, user.username);
    await createAccount(t, token);
    const second = await post(token, '/api/create-instance', {
      phoneNumber: '919811111111',
      sessionName: 'Two',
    });
    expect(second.statusCode).toBe(403);
    expect(second.json()).toEqual({
      success: false,
      message: 'Only one instance is allowed. Please remove the existing instance first.',
    });
    expect((await get(token, '/api/sessions')).json().sessions).toHaveLength(1);
  });

  it('allows ten instances for multi-session users, not eleven', async () => {
    const user = await buildUser(t, { isMultisessionSupported: true });
    const token = await loginToken(t.app, user.username);
    for (let i = 0; i < 10; i++) {
      await createAccount(t, token, {
        phoneNumber: `9190000000${i.toString().padStart(2, '0')}`,
        sessionName: `S${i}`,
      });
    }
    const eleventh = await post(token, '/api/create-instance', {
      phoneNumber: '919811111111',
      sessionName: 'S10',
    });
    expect(eleventh.statusCode).toBe(403);
    expect(eleventh.json().success).toBe(false);
    const accounts = (await get(token, '/api/sessions')).json().sessions;
    expect(accounts).toHaveLength(10);
    expect(accounts.map((s: { sessionName: string }) => s.sessionName)).toEqual(
      Array.from({ length: 10 }, (_, i) => `S${i}`),
    );
    for (const s of accounts) await post(token, `/api/session/${s.sessionId}/terminate`);
  });

  it('refuses a second instance of a number the user has already linked, naming where it is', async () => {
    const user = await buildUser(t, { isMultisessionSupported: true });
    const token = await loginToken(t.app, user.username);
    await createAccount(t, token, { phoneNumber: '919811122233', sessionName: 'Shop phone' });
    // The same number typed another way ('+91 98111-22233') is the same phone.
    const twin = await post(token, '/api/create-instance', {
      phoneNumber: '+91 98111-22233',
      sessionName: 'Shop phone again',
    });
    expect(twin.statusCode).toBe(409);
    expect(twin.json()).toEqual({
      success: false,
      message:
        '919811122233 is already linked in Instances as “Shop phone”. Use that instance, or terminate it first.',
    });
    expect((await get(token, '/api/sessions')).json().sessions).toHaveLength(1);
    // Another user may link that number (a shop's phone moved to a new owner's console).
    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    await createAccount(t, otherToken, { phoneNumber: '919811122233', sessionName: 'Mine' });
  });

  it('restart keeps a connected session, reconnects a dropped one and starts a new QR after logout', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, '919812345678');

    const again = await post(token, `/api/session/${accountId}/restart`);
    expect(again.json()).toEqual({
      success: true,
      message: 'Session is already connected',
      status: 'CONNECTED',
    });

    // A lost connection: DISCONNECTED, then connected again by itself.
    const drop = await post(token, `/api/simulator/sessions/${accountId}/disconnect`);
    expect(drop.statusCode).toBe(200);
    await waitFor('drop', async () => (await statusOf(t, token, accountId)).status === 'DISCONNECTED', 3000);
    await waitFor('reconnect', async () => (await statusOf(t, token, accountId)).connected, 5000);

    // The phone unlinks the device: credentials wiped, DISCONNECTED with a reason, nobody reconnects it.
    const logout = await post(token, `/api/simulator/sessions/${accountId}/logout`);
    expect(logout.statusCode).toBe(200);
    const status = await waitFor(
      'logout',
      async () => {
        const s = await statusOf(t, token, accountId);
        return s.status === 'DISCONNECTED' ? s : undefined;
      },
      3000,
    );
    expect(status.statusReason).toBe('Logged out from the phone');
    expect(await t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId))).toEqual([]);
    const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    expect(row).toMatchObject({ hasCredentials: false, desiredState: 'stopped', ownerNode: null });

    const restart = await post(token, `/api/session/${accountId}/restart`);
    expect(restart.json()).toEqual({
      success: true,
      message: 'Session restart initiated',
      status: 'PENDING',
    });
    const qr = await waitFor(
      'QR after restart',
      async () => {
        const r = await get(token, `/api/${accountId}/QR?t=2`);
        return r.statusCode === 200 ? r : undefined;
      },
      4000,
    );
    expect(qr.headers['content-type']).toBe('image/png');
    await waitFor('link after restart', async () => (await statusOf(t, token, accountId)).connected, 3000);
  });

  it('restart of a session waiting for its QR starts a new QR cycle on the driving node', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await createAccount(t, token, { phoneNumber: '919844444444', sessionName: 'Waiting' });
    const rowOf = async () =>
      (await t.db.select().from(accounts).where(eq(accounts.accountId, accountId)))[0]!;
    const first = await waitFor('first QR', async () => (await rowOf()).qr, 4000);
    const res = await post(token, `/api/session/${accountId}/restart`);
    expect(res.json()).toEqual({ success: true, message: 'Session restart initiated', status: 'PENDING' });
    const second = await waitFor(
      'a new QR',
      async () => {
        const r = await rowOf();
        return r.qr && r.qr !== first && r.command === null ? r : undefined;
      },
      4000,
    );
    expect(second).toMatchObject({ status: 'PENDING', ownerNode: t.ctx.nodeId, qrServedAt: null });
  });

  it('a restarted node reconnects a linked account from the database without a new QR', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, '919822222222');
    await runner.stop();
    expect((await statusOf(t, token, accountId)).status).toBe('DISCONNECTED');
    const qrSeen: string[] = [];
    runner = await startAccountRunner(t.ctx);
    await waitFor(
      'reconnect after restart',
      async () => {
        const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
        if (row?.qr) qrSeen.push(row.qr);
        return row?.status === 'CONNECTED';
      },
      5000,
    );
    expect(qrSeen).toEqual([]);
    expect((await statusOf(t, token, accountId)).connected).toBe(true);
  });

  it('terminate logs out, wipes credentials and removes the session with its groups', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, '919833333333');
    await waitFor(
      'the groups stored',
      async () => (await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId))).length > 0,
    );
    const res = await post(token, `/api/session/${accountId}/terminate`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Session terminated successfully' });
    expect((await get(token, '/api/sessions')).json().sessions).toEqual([]);
    expect(await t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId))).toEqual([]);
    expect(await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId))).toEqual([]);
    expect(runner.transportFor(accountId)).toBeUndefined();
    expect(runner.ownedAccountIds()).not.toContain(accountId);
    expect((await get(token, `/api/${accountId}/status`)).statusCode).toBe(404);
    // A single-session user can create a new instance after removing the old one.
  });
});
