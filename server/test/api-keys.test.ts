import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, messageJobs } from '../src/db/schema.ts';
import { sha256 } from '../src/ids.ts';
import { buildSession } from './fakes/messaging.ts';
import {
  bearer,
  buildAdmin,
  buildUser,
  createTestApp,
  DB_KINDS,
  loginToken,
  type TestApp,
} from './helpers.ts';

const NOT_HERE = 'API keys cannot be used for this: sign in with your password';

describe.each(DB_KINDS)('API keys on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  async function keyFor(token: string, name = 'Shop backend') {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: bearer(token),
      payload: { name },
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
      ['POST', '/api/api-keys', { name: 'another' }],
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

  it('sends as its user, as the README shows', async () => {
    const user = await buildUser(t, { credits: 5 });
    const sessionId = await buildSession(t, user.id, { status: 'CONNECTED' });
    const { key } = await keyFor(await loginToken(t.app, user.username));
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${sessionId}/sendIndividualMessage`,
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
      payload: { name: ' ' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, message: 'Name is required' });
  });
});
