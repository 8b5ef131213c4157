import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountRunner, startAccountRunner } from '../../src/accounts/runner.ts';
import { LINKING_ATTEMPT_MS } from '../../src/transport/baileys/transport.ts';
import { createAccount, statusOf } from '../fakes/accounts.ts';
import { baileysRigFor, OWN_LID, OWN_PN } from '../fakes/baileys-rig.ts';
import { bearer, buildUser, DB_KINDS, loginToken, type TestApp, testAppFor } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** rc14's pairing codes: 8 characters of its Crockford alphabet (Utils/generics.js bytesToCrockford). */
const CODE = /^[1-9A-HJ-NP-TV-Z]{8}$/;

type Answer = { statusCode: number; body: { code?: string; expiresAt?: string; message?: string } };

async function askCode(t: TestApp, token: string, accountId: string, payload?: object): Promise<Answer> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/session/${accountId}/pairing-code`,
    headers: bearer(token),
    ...(payload ? { payload } : {}),
  });
  return { statusCode: res.statusCode, body: res.json() };
}

describe.each(DB_KINDS)('link by phone number on the simulator on %s', (kind) => {
  const t = testAppFor(kind, { SIMULATOR_LINK_AFTER_MS: '1500', SESSION_LEASE_MS: '3000' });
  let runner: AccountRunner;
  beforeAll(async () => {
    runner = await startAccountRunner(t.ctx);
  });
  afterAll(async () => {
    await runner.stop();
  });

  async function pendingAccount(phone: string) {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await createAccount(t, token, { phoneNumber: phone, sessionName: 'By code' });
    return { token, sessionId: accountId };
  }

  it('serves a code (the same one again), links SIMULATOR_LINK_AFTER_MS after the first was served, then answers 409', async () => {
    const { token, sessionId: accountId } = await pendingAccount('919700000001');
    const first = await askCode(t, token, accountId);
    const served = Date.now();
    expect(first.statusCode, JSON.stringify(first.body)).toBe(200);
    expect(first.body.code).toMatch(CODE);
    const expiresIn = new Date(first.body.expiresAt!).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(150_000);
    expect(expiresIn).toBeLessThanOrEqual(160_000);
    // Another user may not ask for it.
    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    expect((await askCode(t, otherToken, accountId)).statusCode).toBe(404);
    // Asked again: the same code (read from the row).
    const again = await askCode(t, token, accountId);
    expect(again.body).toEqual(first.body);
    expect((await statusOf(t, token, accountId)).connected).toBe(false);
    await waitFor('linked by the code', async () => (await statusOf(t, token, accountId)).connected);
    expect(Date.now() - served).toBeGreaterThanOrEqual(1400);
    const linked = await askCode(t, token, accountId);
    expect(linked.statusCode).toBe(409);
    expect(linked.body.message).toBe('This account is already linked');
  });

  it('a new code on request is a new linking attempt; the link route links at once', async () => {
    // Linking by itself takes longer than this test.
    const { token, sessionId: accountId } = await pendingAccount('919700000002');
    const first = await askCode(t, token, accountId);
    expect(first.statusCode).toBe(200);
    const renewed = await askCode(t, token, accountId, { renew: true });
    expect(renewed.statusCode, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.body.code).toMatch(CODE);
    expect(renewed.body.code).not.toBe(first.body.code);
    const link = await t.app.inject({
      method: 'POST',
      url: `/api/simulator/sessions/${accountId}/link`,
      headers: bearer(token),
    });
    expect(link.statusCode, link.body).toBe(200);
    await waitFor('linked', async () => (await statusOf(t, token, accountId)).connected, 5000);
  });
});

describe.each(DB_KINDS)('link by phone number on the Baileys transport (fake rc14 socket) on %s', (kind) => {
  const rig = baileysRigFor(kind);

  it('asks rc14 once per socket after its first QR, with the session’s number; QR renewals keep the code; links after the phone enters it', async () => {
    const { accountId, first: s1, index, token } = await rig.start('Code');
    // requestPairingCode sets creds.me: that is not linked yet. The transport saves credentials one
    // update after the other and says when what it saved is linked: the first such save must come
    // after the phone entered the code.
    let entered = false;
    const linkedSaves: boolean[] = [];
    rig.transports.get(accountId)!.on('creds-saved', () => linkedSaves.push(entered));
    // No QR yet: the API waits for the socket's first one.
    const asking = askCode(rig.t, token, accountId);
    // The request is in the row, and a pass of the runner that read it has applied it to the
    // driver (where a code would be asked for): no request without a QR.
    await waitFor('the request in the row', async () => (await rig.row(accountId)).pairingRequestedAt, 5000);
    await rig.runner.poke();
    expect(s1.pairingRequests).toEqual([]);
    const qrAt = Date.now();
    s1.ev.emit('connection.update', { qr: 'QR-REF-1' });
    const answer = await asking;
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.code).toMatch(CODE);
    expect(s1.pairingRequests).toEqual([OWN_PN]);
    expect(s1.config.auth.creds.pairingCode).toBe(answer.body.code);
    const expiresAt = new Date(answer.body.expiresAt!).getTime();
    expect(Math.abs(expiresAt - (qrAt + LINKING_ATTEMPT_MS))).toBeLessThan(1000);

    // QR renewals of the same socket: the same code, no second request.
    s1.ev.emit('connection.update', { qr: 'QR-REF-2' });
    await waitFor('renewed QR', async () => (await rig.row(accountId)).qr === 'QR-REF-2', 5000);
    const again = await askCode(rig.t, token, accountId);
    expect(again.body.code).toBe(answer.body.code);
    expect(s1.pairingRequests).toEqual([OWN_PN]);

    // The phone enters the code: companion_finish (registered), pair-success, 515, login.
    entered = true;
    s1.companionFinish();
    await waitFor('linked credentials saved', async () => (await rig.row(accountId)).hasCredentials, 5000);
    expect(linkedSaves[0]).toBe(true);
    s1.pairSuccess({ id: `${OWN_PN}:9@s.whatsapp.net`, lid: `${OWN_LID}:9@lid` });
    s1.close(515, 'Stream Errored (restart required)');
    const s2 = await waitFor('the socket after 515', async () => rig.maker.sockets[index + 1]);
    expect(s2.config.auth.creds.me?.id).toBe(`${OWN_PN}:9@s.whatsapp.net`);
    expect(s2.config.auth.creds.registered).toBe(true);
    s2.user = { id: `${OWN_PN}:9@s.whatsapp.net`, lid: `${OWN_LID}:9@lid` };
    s2.open();
    s2.flushLogin();
    await waitFor('CONNECTED', async () => (await rig.row(accountId)).status === 'CONNECTED');
    expect(s2.pairingRequests).toEqual([]);
    const row = await rig.row(accountId);
    expect([row.pairingCode, row.pairingRequestedAt]).toEqual([null, null]);
    const linked = await askCode(rig.t, token, accountId);
    expect(linked.statusCode).toBe(409);
    expect(linked.body.message).toBe('This account is already linked');
  });

  it('an attempt that ends before the phone entered the code is not a linked account: the next starts from fresh credentials', async () => {
    const { accountId, first: s1, index, token } = await rig.start('Code expired');
    s1.ev.emit('connection.update', { qr: 'QR-REF-1' });
    const first = await askCode(rig.t, token, accountId);
    expect(first.statusCode).toBe(200);
    expect(s1.config.auth.creds.me?.id).toBe(`${OWN_PN}@s.whatsapp.net`);
    // A network drop mid-pairing: rc14 would log in with this `me`; the new socket registers afresh
    // and the code asked for comes again on its first QR.
    s1.close(428, 'Connection Closed');
    const s2 = await waitFor('the socket after the drop', async () => rig.maker.sockets[index + 1]);
    expect(s2.config.auth.creds.me).toBeUndefined();
    expect(
      Buffer.from(s2.config.auth.creds.noiseKey.public).equals(
        Buffer.from(s1.config.auth.creds.noiseKey.public),
      ),
    ).toBe(false);
    s2.ev.emit('connection.update', { qr: 'QR-REF-A' });
    await waitFor('a code on the new socket', async () => s2.pairingRequests.length === 1);
    const second = await askCode(rig.t, token, accountId);
    expect(second.statusCode).toBe(200);
    expect(second.body.code).toBe(s2.config.auth.creds.pairingCode);
    expect(second.body.code).not.toBe(first.body.code);

    // The QR refs run out (rc14: 408 'QR refs attempts ended'): not linked, so it is final.
    s2.close(408, 'QR refs attempts ended');
    await waitFor('QR expired', async () => {
      expect((await rig.row(accountId)).statusReason).toBe(
        'QR code expired. Restart the instance to get a new one.',
      );
      return true;
    });
    const stopped = await rig.row(accountId);
    expect([
      stopped.status,
      stopped.desiredState,
      stopped.hasCredentials,
      stopped.pairingCode,
      stopped.ownerNode,
    ]).toEqual(['DISCONNECTED', 'stopped', false, null, null]);
    // Released, so its transport is closed (driver.ts stop closes it first): no socket comes.
    expect(rig.maker.sockets[index + 2]).toBeUndefined();
    // Asking for a code again starts a new attempt, from fresh credentials.
    const asking = askCode(rig.t, token, accountId);
    const s3 = await waitFor('a new attempt', async () => rig.maker.sockets[index + 2]);
    expect(s3.config.auth.creds.me).toBeUndefined();
    s3.ev.emit('connection.update', { qr: 'QR-REF-X' });
    const third = await asking;
    expect(third.statusCode, JSON.stringify(third.body)).toBe(200);
    expect(s3.pairingRequests).toEqual([OWN_PN]);
    expect(third.body.code).toBe(s3.config.auth.creds.pairingCode);
  });
});
