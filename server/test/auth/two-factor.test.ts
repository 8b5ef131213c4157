import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import { appsFor, bearer, buildAdmin, buildUser, DB_KINDS, login, loginToken } from '../helpers.ts';

const totpAt = (secret: string, timestamp: number) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp,
  });
const totpNow = (secret: string) => totpAt(secret, Date.now());

describe.each(DB_KINDS)('two-factor sign-in (%s)', (kind) => {
  const app = appsFor(kind);

  it('sets up with a QR and a code, asks for the code at sign-in, takes a recovery code once, turns off with a code', async () => {
    const t = await app({ LOGIN_RATE_LIMIT: '4' });
    const user = await buildUser(t);
    const inject = t.app.inject.bind(t.app);
    const token = await loginToken(t.app, user.username);
    const call = (url: string, payload?: object, tok = token) =>
      inject({ method: payload ? 'POST' : 'GET', url, headers: bearer(tok), payload });

    expect((await call('/api/auth/2fa')).json()).toEqual({
      success: true,
      enabled: false,
      required: false,
    });
    const setup = (await call('/api/auth/2fa/setup', {})).json();
    expect(setup.qr).toMatch(/^data:image\/png;base64,/);
    expect(setup.otpauthUrl).toContain(`secret=${setup.secret}`);
    const wrong = await call('/api/auth/2fa/enable', {
      code: '000000' === totpNow(setup.secret) ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ success: false, message: 'The code is not valid. Please try again.' });
    // One time step's code and the next: read once, so that a step ending mid-test changes neither.
    const enabledAt = Date.now();
    const enablingOtp = totpAt(setup.secret, enabledAt);
    const enabled = await call('/api/auth/2fa/enable', { code: enablingOtp });
    expect(enabled.statusCode).toBe(200);
    const codes = enabled.json().recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect((await call('/api/auth/2fa')).json().enabled).toBe(true);

    const noCode = await login(inject, { username: user.username, password: 'password123' });
    expect(noCode.statusCode).toBe(401);
    expect(noCode.json()).toEqual({
      success: false,
      message: 'Enter the 6-digit code from your authenticator app',
      twoFactor: true,
    });
    // The code that turned it on is used; the next step's code (within the window) signs in once.
    const enablingCode = await login(inject, {
      username: user.username,
      password: 'password123',
      otp: enablingOtp,
    });
    expect(enablingCode.statusCode).toBe(401);
    const next = totpAt(setup.secret, enabledAt + 30_000);
    const withCode = await login(inject, { username: user.username, password: 'password123', otp: next });
    expect(withCode.statusCode).toBe(200);
    expect(withCode.json().token).toEqual(expect.any(String));
    const replayed = await login(inject, { username: user.username, password: 'password123', otp: next });
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json()).toEqual({
      success: false,
      message: 'The code is not valid. Please try again.',
      twoFactor: true,
    });
    const recovery = await login(inject, {
      username: user.username,
      password: 'password123',
      otp: codes[0]!.toUpperCase(),
    });
    expect(recovery.statusCode).toBe(200);
    const again = await login(inject, { username: user.username, password: 'password123', otp: codes[0]! });
    expect(again.statusCode).toBe(401);
    expect(again.json().twoFactor).toBe(true);

    // Wrong codes count like wrong passwords (LOGIN_RATE_LIMIT 4: this is the 4th failure).
    for (const code of ['123456', '654321', 'zzzzz-zzzzz'])
      expect(
        (await login(inject, { username: user.username, password: 'password123', otp: code })).statusCode,
      ).toBe(401);
    const limited = await login(inject, {
      username: user.username,
      password: 'password123',
      otp: totpNow(setup.secret),
    });
    expect(limited.statusCode).toBe(429);
    await t.db.execute('DELETE FROM login_failures');

    const off = await call('/api/auth/2fa/disable', { code: codes[1]! });
    expect(off.json()).toEqual({ success: true, message: 'Two-factor sign-in is off' });
    expect((await login(inject, { username: user.username, password: 'password123' })).statusCode).toBe(200);
  });

  it('REQUIRE_ADMIN_2FA: an admin without it reaches only the set-up', async () => {
    const t = await app({ REQUIRE_ADMIN_2FA: 'true' });
    const admin = await buildAdmin(t);
    const token = await loginToken(t.app, admin.username);
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/users', headers: bearer(token) });
    expect(list.statusCode).toBe(403);
    expect(list.json()).toEqual({
      success: false,
      message: 'Set up two-factor sign-in first (required for admins)',
    });
    const status = await t.app.inject({ method: 'GET', url: '/api/auth/2fa', headers: bearer(token) });
    expect(status.json()).toEqual({ success: true, enabled: false, required: true });
    const setup = (
      await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', headers: bearer(token) })
    ).json();
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/enable',
      headers: bearer(token),
      payload: { code: totpNow(setup.secret) },
    });
    const after = await t.app.inject({ method: 'GET', url: '/api/admin/users', headers: bearer(token) });
    expect(after.statusCode).toBe(200);
    // A USER is not asked.
    const user = await buildUser(t, { managedBy: admin.id });
    const userToken = await loginToken(t.app, user.username);
    const accounts = await t.app.inject({
      method: 'GET',
      url: '/api/sessions',
      headers: bearer(userToken),
    });
    expect(accounts.statusCode).toBe(200);
  });
});
