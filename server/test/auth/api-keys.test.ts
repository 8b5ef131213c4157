import { eq } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import { apiKeys, messageJobs } from '../../src/db/schema.ts';
import { sha256 } from '../../src/ids.ts';
import { setPassword } from '../../src/users/service.ts';
import { buildAccount } from '../fakes/messaging.ts';
import { bearer, buildAdmin, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

const NOT_HERE = 'API keys cannot be used for this: sign in with your password';

describe.each(DB_KINDS)('API keys on %s', (kind) => {
  const t = testAppFor(kind);

  async function keyFor(token: string, name = 'Shop backend', password = 'password123') {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: bearer(token),
      payload: { name, password },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { success: true; id: string; key: string };
  }

  it('shows a new key once, keeps only its hash, and lists it with its last use', async () => {
    const user = await buildUser(t, { credits: 7 });
    const token = await loginToken(t.app, user.username);
    const created = await keyFor(token);
    expect(created).toEqual({
      success: true,
      id: expect.any(String),
      key: expect.stringMatching(/^wak_[A-Za-z0-9_-]{43}$/),
    });
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row!.keyHash).toBe(sha256(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key.slice(12));

    const before = await t.app.inject({ method: 'GET', url: '/api/api-keys', headers: bearer(token) });
    expect(before.json().keys).toEqual([
      {
        id: created.id,
        name: 'Shop backend',
        prefix: created.key.slice(0, 12),
        createdAt: expect.any(String),
        lastUsedAt: null,
        revokedAt: null,
        revokedReason: null,
      },
    ]);
    expect(before.body).not.toContain(created.key);

    // The key works as the user on the user's own API.
    const details = await t.app.inject({
      method: 'GET',
      url: '/api/userDetails',
      headers: bearer(created.key),
    });
    expect(details.statusCode).toBe(200);
    expect(details.json().user.username).toBe(user.username);
    expect(details.json().credits.user_credits).toBe(7);
    const after = await t.app.inject({ method: 'GET', url: '/api/api-keys', headers: bearer(token) });
    expect(Date.now() - Date.parse(after.json().keys[0].lastUsedAt)).toBeLessThan(60_000);
  });

  it('is refused on the admin API, for making keys and for two-factor changes; a revoked key stops at once', async () => {
    const admin = await buildAdmin(t);
    const adminToken = await loginToken(t.app, admin.username);
    const { key, id } = await keyFor(adminToken, 'admin script');
    for (const [method, url, payload] of [
      ['GET', '/api/admin/users', undefined],
      ['POST', '/api/admin/users', { username: 'viakey', password: 'password123', name: 'Via key' }],
      ['GET', '/api/admin/audit', undefined],
      ['POST', '/api/api-keys', { name: 'another', password: 'password123' }],
      ['POST', '/api/auth/2fa/setup', undefined],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: bearer(key), payload });
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toEqual({ success: false, message: NOT_HERE });
    }
    // but the admin's own, non-admin API answers
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/webhooks', headers: bearer(key) })).statusCode,
    ).toBe(200);

    // Another user can neither see nor revoke it.
    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    const foreign = await t.app.inject({
      method: 'DELETE',
      url: `/api/api-keys/${id}`,
      headers: bearer(otherToken),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ success: false, message: 'API key not found' });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/api-keys', headers: bearer(otherToken) })).json().keys,
    ).toEqual([]);

    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/api-keys/${id}`,
      headers: bearer(adminToken),
    });
    expect(revoked.json()).toEqual({ success: true, message: 'API key revoked' });
    const refused = await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(key) });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ success: false, message: 'Unauthorized' });
    const list = await t.app.inject({ method: 'GET', url: '/api/api-keys', headers: bearer(adminToken) });
    expect(list.json().keys[0].revokedAt).toEqual(expect.any(String));
    expect(list.json().keys[0].revokedReason).toBe('revoked');
  });

  it('stops working when its user is disabled, and a made-up key is no key', async () => {
    const admin = await buildAdmin(t);
    const user = await buildUser(t, { managedBy: admin.id });
    const { key } = await keyFor(await loginToken(t.app, user.username));
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(key) })).statusCode,
    ).toBe(200);
    const disable = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      headers: bearer(await loginToken(t.app, admin.username)),
      payload: { disabled: true },
    });
    expect(disable.statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(key) })).statusCode,
    ).toBe(401);
    const madeUp = `wak_${'A'.repeat(43)}`;
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(madeUp) })).statusCode,
    ).toBe(401);
  });

  it('sends as its user, as docs/api.md shows', async () => {
    const user = await buildUser(t, { credits: 5 });
    const accountId = await buildAccount(t, user.id, { status: 'CONNECTED' });
    const { key } = await keyFor(await loginToken(t.app, user.username));
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(key),
      payload: { chatIds: ['919812345678'], type: 'string', content: 'Your order 1042 has shipped' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ success: true, jobId: expect.any(String) });
    const [job] = await t.db.select().from(messageJobs).where(eq(messageJobs.id, res.json().jobId));
    expect(job).toMatchObject({ userId: user.id, total: 1, content: 'Your order 1042 has shipped' });
  });

  it('asks for a name', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: bearer(token),
      payload: { name: ' ', password: 'password123' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, message: 'Name is required' });
  });

  const keyWorks = async (key: string) =>
    (await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(key) })).statusCode;
  const reasons = async (token: string) =>
    (
      (await t.app.inject({ method: 'GET', url: '/api/api-keys', headers: bearer(token) })).json().keys as {
        revokedReason: string | null;
      }[]
    ).map((k) => k.revokedReason);

  it('asks for the password again (and the code when two-factor sign-in is on) before making a key', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const make = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/api-keys', headers: bearer(token), payload });
    const tokenOnly = await make({ name: 'stolen token' });
    expect(tokenOnly.statusCode).toBe(400);
    expect(tokenOnly.json()).toEqual({ success: false, message: 'Password is required' });
    const wrong = await make({ name: 'stolen token', password: 'guess-1234' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ success: false, message: 'Password is incorrect' });
    // The session that asked stays signed in.
    expect(await keyWorks(token)).toBe(200);

    const setup = (
      await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', headers: bearer(token) })
    ).json() as { secret: string };
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.secret), digits: 6, period: 30 });
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/enable',
      headers: bearer(token),
      payload: { code: totp.generate() },
    });
    const noCode = await make({ name: 'k', password: 'password123' });
    expect(noCode.json()).toEqual({
      success: false,
      message: 'Enter the 6-digit code from your authenticator app',
    });
    const next = totp.generate({ timestamp: Date.now() + 30_000 });
    const withCode = await make({ name: 'k', password: 'password123', code: next });
    expect(withCode.statusCode, withCode.body).toBe(200);
    // That code is used: it does not make a second key.
    const replay = await make({ name: 'k2', password: 'password123', code: next });
    expect(replay.json()).toEqual({ success: false, message: 'The code is not valid. Please try again.' });
    expect(await t.db.select().from(apiKeys).where(eq(apiKeys.userId, user.id))).toHaveLength(1);
  });

  it('ends every key of a user at a password reset (admin or CLI), at two-factor sign-in turned on, and when the user is disabled; the list says why', async () => {
    const admin = await buildAdmin(t);
    const adminToken = await loginToken(t.app, admin.username);
    const patch = (userId: string, payload: object) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${userId}`,
        headers: bearer(adminToken),
        payload,
      });

    const reset = await buildUser(t, { managedBy: admin.id });
    const a = await keyFor(await loginToken(t.app, reset.username));
    expect((await patch(reset.id, { password: 'new-password-1' })).statusCode).toBe(200);
    expect(await keyWorks(a.key)).toBe(401);
    const resetToken = await loginToken(t.app, reset.username, 'new-password-1');
    expect(await reasons(resetToken)).toEqual(['password']);

    // The user's own change: the current password is asked; sign-ins and keys end, a new token comes back.
    const self = await buildUser(t);
    const selfToken = await loginToken(t.app, self.username);
    const own = await keyFor(selfToken);
    const change = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/auth/password', headers: bearer(selfToken), payload });
    const wrongCurrent = await change({ currentPassword: 'not-it-123', newPassword: 'self-password-1' });
    expect(wrongCurrent.json()).toEqual({ success: false, message: 'Password is incorrect' });
    expect(await keyWorks(own.key)).toBe(200);
    const changed = await change({ currentPassword: 'password123', newPassword: 'self-password-1' });
    expect(changed.json()).toEqual({ success: true, message: 'Password changed', token: expect.any(String) });
    expect(await keyWorks(own.key)).toBe(401);
    expect(await keyWorks(selfToken)).toBe(401);
    expect(await reasons(changed.json().token)).toEqual(['password']);
    const viaKey = await t.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      headers: bearer((await keyFor(changed.json().token, 'k', 'self-password-1')).key),
      payload: { currentPassword: 'self-password-1', newPassword: 'self-password-2' },
    });
    expect(viaKey.statusCode).toBe(403);

    // The CLI's user:reset-password calls setPassword.
    const cliUser = await buildUser(t);
    const b = await keyFor(await loginToken(t.app, cliUser.username));
    await setPassword(t.db, cliUser.id, 'cli-password-1');
    expect(await keyWorks(b.key)).toBe(401);
    expect(await reasons(await loginToken(t.app, cliUser.username, 'cli-password-1'))).toEqual(['password']);

    const twoFactor = await buildUser(t);
    const tfToken = await loginToken(t.app, twoFactor.username);
    const c = await keyFor(tfToken);
    const setup = (
      await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', headers: bearer(tfToken) })
    ).json() as { secret: string };
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.secret) }).generate();
    const on = await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/enable',
      headers: bearer(tfToken),
      payload: { code },
    });
    expect(on.statusCode).toBe(200);
    expect(await keyWorks(c.key)).toBe(401);
    expect(await reasons(tfToken)).toEqual(['two_factor']);

    const disabled = await buildUser(t, { managedBy: admin.id });
    const d = await keyFor(await loginToken(t.app, disabled.username));
    expect((await patch(disabled.id, { disabled: true })).statusCode).toBe(200);
    expect((await patch(disabled.id, { disabled: false })).statusCode).toBe(200);
    // Enabled again, the key stays ended.
    expect(await keyWorks(d.key)).toBe(401);
    expect(await reasons(await loginToken(t.app, disabled.username))).toEqual(['disabled']);
  });

  it("acts on its own user's resources only: an admin's key does not read the jobs of the users the admin manages", async () => {
    const admin = await buildAdmin(t);
    const adminToken = await loginToken(t.app, admin.username);
    const { key } = await keyFor(adminToken, 'admin script');
    const user = await buildUser(t, { managedBy: admin.id, credits: 5 });
    const accountId = await buildAccount(t, user.id, { status: 'CONNECTED' });
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(await loginToken(t.app, user.username)),
      payload: { chatIds: ['919812345678'], type: 'string', content: 'Private order details' },
    });
    const jobId = sent.json().jobId as string;
    for (const url of [
      `/api/message-jobs/${user.id}`,
      `/api/message-jobs/${user.id}/export.csv`,
      `/api/message-jobs-details/${jobId}`,
    ]) {
      // The admin's sign-in reads them (the managing-admin rule) ...
      const asAdmin = await t.app.inject({ method: 'GET', url, headers: bearer(adminToken) });
      expect(asAdmin.statusCode, url).toBe(200);
      // ... the admin's key does not.
      const asKey = await t.app.inject({ method: 'GET', url, headers: bearer(key) });
      expect(asKey.statusCode, url).toBe(404);
      expect(asKey.body).not.toContain('Private order details');
    }
    const details = await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(key) });
    expect(details.json().user.credits.admin_users).toEqual([]);
  });
});
