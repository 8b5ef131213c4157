import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/credits/credits.ts';
import { bearer, buildAdmin, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

describe.each(DB_KINDS)('admin user management on %s', (kind) => {
  const t = testAppFor(kind);
  let adminToken: string;
  beforeAll(async () => {
    const admin = await buildAdmin(t);
    adminToken = await loginToken(t.app, admin.username);
  });

  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: bearer(adminToken), payload });

  it('creates a user who can sign in and read the credits granted', async () => {
    const created = await api('POST', '/api/admin/users', {
      username: 'kirana_store',
      password: 'secret-pass-1',
      name: 'Kirana Store',
      credits: 250,
      is_bulk_messaging_enabled: 1,
      is_multisession_supported: true,
    });
    expect(created.statusCode).toBe(200);
    const user = created.json().user;
    expect(user).toMatchObject({
      username: 'kirana_store',
      name: 'Kirana Store',
      role: 'USER',
      credits: 250,
      is_bulk_messaging_enabled: 1,
      is_multisession_supported: 1,
      disabled: false,
    });
    const token = await loginToken(t.app, 'kirana_store', 'secret-pass-1');
    const details = await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(token) });
    expect(details.json().credits).toEqual({ user_credits: 250, admin_users: [] });
    expect(details.json().user.setting).toEqual({
      is_bulk_messaging_enabled: 1,
      is_multisession_supported: 1,
    });
  });

  it('adds and removes credits, never below zero, with every change in the ledger', async () => {
    const created = (
      await api('POST', '/api/admin/users', {
        username: 'dairy',
        password: 'secret-pass-1',
        name: 'Dairy',
        credits: 10,
      })
    ).json().user;
    const add = await api('POST', `/api/admin/users/${created.id}/credits`, { amount: 90, note: 'Top-up' });
    expect(add.json()).toEqual({ success: true, credits: 100 });
    const remove = await api('POST', `/api/admin/users/${created.id}/credits`, { amount: -40 });
    expect(remove.json()).toEqual({ success: true, credits: 60 });
    const tooMuch = await api('POST', `/api/admin/users/${created.id}/credits`, { amount: -61 });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json().message).toBe('The balance is lower than the amount to remove');
    const zero = await api('POST', `/api/admin/users/${created.id}/credits`, { amount: 0 });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().message).toBe('Amount must not be zero');
    const fraction = await api('POST', `/api/admin/users/${created.id}/credits`, { amount: 1.5 });
    expect(fraction.json().message).toBe('Amount must be a whole number');
    const ledger = (await api('GET', `/api/admin/users/${created.id}/ledger`)).json().entries;
    expect(
      ledger.map((e: { delta: number; reason: string; balanceAfter: number }) => [
        e.delta,
        e.reason,
        e.balanceAfter,
      ]),
    ).toEqual([
      [-40, 'adjust', 60],
      [90, 'grant', 100],
      [10, 'grant', 10],
    ]);
    expect(await ledgerSum(t.db, created.id)).toBe(60);
  });

  it('edits name and flags, resets a password, disables and re-enables', async () => {
    const created = (
      await api('POST', '/api/admin/users', { username: 'tailor', password: 'secret-pass-1', name: 'Tailor' })
    ).json().user;
    const edited = await api('PATCH', `/api/admin/users/${created.id}`, {
      name: 'Tailor Shop',
      is_bulk_messaging_enabled: 1,
    });
    expect(edited.json().user).toMatchObject({
      name: 'Tailor Shop',
      is_bulk_messaging_enabled: 1,
      is_multisession_supported: 0,
    });
    await api('PATCH', `/api/admin/users/${created.id}`, { password: 'new-secret-2' });
    await expect(loginToken(t.app, 'tailor', 'secret-pass-1')).rejects.toThrow();
    const token = await loginToken(t.app, 'tailor', 'new-secret-2');
    await api('PATCH', `/api/admin/users/${created.id}`, { disabled: true });
    // a disabled user's existing token stops working at once
    const refused = await t.app.inject({ method: 'GET', url: '/api/userDetails', headers: bearer(token) });
    expect(refused.statusCode).toBe(401);
    await api('PATCH', `/api/admin/users/${created.id}`, { disabled: false });
    expect(await loginToken(t.app, 'tailor', 'new-secret-2')).toBeTruthy();
  });

  it('refuses a duplicate username and bad fields with clear messages', async () => {
    await api('POST', '/api/admin/users', { username: 'bakery', password: 'secret-pass-1', name: 'Bakery' });
    const dup = await api('POST', '/api/admin/users', {
      username: 'BAKERY',
      password: 'secret-pass-1',
      name: 'B',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe('Username is already taken');
    const short = await api('POST', '/api/admin/users', {
      username: 'pharmacy',
      password: 'short',
      name: 'P',
    });
    expect(short.statusCode).toBe(400);
    expect(short.json().message).toBe('Password must be at least 8 characters');
    const negative = await api('POST', '/api/admin/users', {
      username: 'florist',
      password: 'secret-pass-1',
      name: 'F',
      credits: -5,
    });
    expect(negative.json().message).toBe('Credits cannot be negative');
  });
});
