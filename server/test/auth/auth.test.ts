import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ensureAdmin } from '../../src/auth/service.ts';
import { ledgerSum } from '../../src/credits/credits.ts';
import { authTokens } from '../../src/db/schema.ts';
import {
  bearer,
  buildAdmin,
  buildUser,
  createTestApp,
  DB_KINDS,
  loginToken,
  testAppFor,
} from '../helpers.ts';

describe.each(DB_KINDS)('sign-in on %s', (kind) => {
  const t = testAppFor(kind, { LOGIN_RATE_LIMIT: '5' });

  it('signs in with the response shape kept to the letter', async () => {
    const admin = await buildAdmin(t, { credits: 0 });
    const user = await buildUser(t, {
      managedBy: admin.id,
      credits: 100_000,
      isBulkMessagingEnabled: true,
      isMultisessionSupported: false,
      name: 'Asha Rao',
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: user.username.toUpperCase(), password: user.password },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.message).toBe('Login successful');
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(body.user).toEqual({
      id: user.id,
      name: 'Asha Rao',
      username: user.username,
      role: 'USER',
      setting: { is_bulk_messaging_enabled: 1, is_multisession_supported: 0 },
      credits: { user_credits: 100_000, admin_users: [] },
    });
    // the token is stored hashed, never as sent
    const rows = await t.db.select().from(authTokens);
    expect(rows.some((r) => r.tokenHash === body.token)).toBe(false);

    const adminLogin = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: admin.username, password: admin.password },
    });
    expect(adminLogin.json().user.role).toBe('ADMIN');
    expect(adminLogin.json().user.credits.admin_users).toEqual([
      { user_id: user.id, username: user.username, name: 'Asha Rao' },
    ]);
  });

  it('refuses a wrong password with 401 and the spec message', async () => {
    const user = await buildUser(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: user.username, password: 'wrong-password' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ success: false, message: 'Invalid username or password' });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'nobody-here', password: 'whatever' },
    });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().message).toBe('Invalid username or password');
  });

  it('answers 400 with a message for missing fields', async () => {
    const noPassword = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'x' },
    });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.json()).toEqual({ success: false, message: 'Password is required' });
    const noUser = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'x' } });
    expect(noUser.json().message).toBe('Username is required');
    const noBody = await t.app.inject({ method: 'POST', url: '/api/auth/login' });
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json().success).toBe(false);
    expect(typeof noBody.json().message).toBe('string');
    const badJson = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username":',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().message).toBe('Request body is not valid JSON');
  });

  it('rate limits login attempts per IP and username with 429 and no token', async () => {
    const user = await buildUser(t);
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: user.username, password: 'nope' },
      });
      codes.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json().message).toMatch(/^Too many login attempts\. Please try again in \d+ seconds\.$/);
        expect(res.json().token).toBeUndefined();
      }
    }
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // even the right password is refused while limited
    const right = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: user.username, password: user.password },
    });
    expect(right.statusCode).toBe(429);
    // another username from the same IP is not affected
    const other = await buildUser(t);
    expect(await loginToken(t.app, other.username)).toBeTruthy();
  });

  it('logout revokes the token', async () => {
    const user = await buildUser(t, { credits: 7 });
    const token = await loginToken(t.app, user.username);
    const before = await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(token) });
    expect(before.statusCode).toBe(200);
    expect(before.json().credits.user_credits).toBe(7);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(token) });
    expect(out.statusCode).toBe(200);
    const after = await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(token) });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ success: false, message: 'Unauthorized' });
  });

  it('refuses an expired token', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    await t.db.update(authTokens).set({ expiresAt: sql`now() - interval '1 second'` });
    const res = await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(token) });
    expect(res.statusCode).toBe(401);
  });

  it('refuses a disabled user at login', async () => {
    const admin = await buildAdmin(t);
    const user = await buildUser(t, { managedBy: admin.id });
    const adminToken = await loginToken(t.app, admin.username);
    await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      headers: bearer(adminToken),
      payload: { disabled: true },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: user.username, password: user.password },
    });
    expect(res.statusCode).toBe(403);
  });

  it('registers a user under the first admin and records forgot-password requests', async () => {
    const fresh = await createTestApp(kind, { SIGNUP_ENABLED: 'true' });
    try {
      const created = await ensureAdmin(fresh.db, fresh.ctx.config);
      expect(created).toEqual({ username: 'admin', password: 'admin-password', generated: false });
      expect(await ensureAdmin(fresh.db, fresh.ctx.config)).toBeNull();
      const reg = await fresh.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: 'newshop', password: 'longenough', name: 'New Shop' },
      });
      expect(reg.statusCode).toBe(200);
      const again = await fresh.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: 'NewShop', password: 'longenough', name: 'Dup' },
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toBe('Username is already taken');
      const token = await loginToken(fresh.app, 'newshop', 'longenough');
      const details = await fresh.app.inject({
        method: 'GET',
        url: '/api/userDetails',
        headers: bearer(token),
      });
      expect(details.json().user.setting).toEqual({
        is_bulk_messaging_enabled: 0,
        is_multisession_supported: 0,
      });
      expect(details.json().credits.user_credits).toBe(0);

      await fresh.app.inject({
        method: 'POST',
        url: '/api/auth/forgot-password',
        payload: { username: 'newshop' },
      });
      const adminToken = await loginToken(fresh.app, 'admin', 'admin-password');
      const list = await fresh.app.inject({
        method: 'GET',
        url: '/api/admin/users',
        headers: bearer(adminToken),
      });
      const listed = list.json().users.find((u: { username: string }) => u.username === 'newshop');
      expect(listed.passwordResetRequestedAt).not.toBeNull();
      const noSignup = await createTestApp(kind, { SIGNUP_ENABLED: 'false' });
      const refused = await noSignup.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: 'another', password: 'longenough', name: 'X' },
      });
      expect(refused.statusCode).toBe(403);
      await noSignup.close();
      expect(await ledgerSum(fresh.db, listed.id)).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
