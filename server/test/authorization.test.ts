import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  buildAdmin,
  buildUser,
  createTestApp,
  DB_KINDS,
  loginToken,
  type TestApp,
} from './helpers.ts';

const PUBLIC = new Set([
  'GET /api/meta',
  'POST /api/auth/login',
  'POST /api/auth/register',
  'POST /api/auth/forgot-password',
]);

/** Fills `:param` placeholders with a plausible but non-existent value. */
const concrete = (url: string) =>
  url.replace(/:([A-Za-z]+)/g, (_m, name: string) => `x-${name}-1`).replace('*', 'x');

describe.each(DB_KINDS)('authorisation on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('answers 401 without a token on every /api route but login, register, forgot-password and docs', async () => {
    const routes = t.app.routeList.filter((r) => r.url.startsWith('/api/') && !r.url.startsWith('/api/docs'));
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const leaks: string[] = [];
    for (const route of routes) {
      const key = `${route.method} ${route.url}`;
      const res = await t.app.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        payload: {},
      });
      if (PUBLIC.has(key)) {
        expect(route.public, key).toBe(true);
        continue;
      }
      if (res.statusCode !== 401 || res.json().message !== 'Unauthorized')
        leaks.push(`${key} → ${res.statusCode}`);
      // a forged token is no better than none
      const forged = await t.app.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        headers: bearer('forged-token-value'),
        payload: {},
      });
      if (forged.statusCode !== 401) leaks.push(`${key} (forged token) → ${forged.statusCode}`);
    }
    expect(leaks).toEqual([]);
  });

  it('serves the API docs without a token and unknown /api paths as 404 JSON', async () => {
    const docs = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(docs.statusCode).toBe(200);
    expect(docs.json().paths['/api/auth/login']).toBeDefined();
    const unknown = await t.app.inject({ method: 'GET', url: '/api/no-such-thing' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ success: false, message: 'Route GET /api/no-such-thing not found' });
  });

  it('sets security headers', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: {} });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
  });

  it('gives a USER 403 on every /api/admin route', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const adminRoutes = t.app.routeList.filter((r) => r.url.startsWith('/api/admin'));
    expect(adminRoutes.length).toBe(7);
    for (const route of adminRoutes) {
      const res = await t.app.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        headers: bearer(token),
        payload: { amount: 5, name: 'x' },
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(res.json()).toEqual({ success: false, message: 'Admin access required' });
    }
  });

  it('scopes an ADMIN to the users it manages: another admin’s user answers 404', async () => {
    const adminA = await buildAdmin(t);
    const adminB = await buildAdmin(t);
    const userOfB = await buildUser(t, { managedBy: adminB.id, credits: 5 });
    const tokenA = await loginToken(t.app, adminA.username);
    const calls = [
      { method: 'PATCH', url: `/api/admin/users/${userOfB.id}`, payload: { name: 'Hijacked' } },
      { method: 'POST', url: `/api/admin/users/${userOfB.id}/credits`, payload: { amount: 1000 } },
      { method: 'GET', url: `/api/admin/users/${userOfB.id}/ledger` },
    ] as const;
    for (const call of calls) {
      const res = await t.app.inject({ ...call, headers: bearer(tokenA) });
      expect(res.statusCode, call.url).toBe(404);
      expect(res.json()).toEqual({ success: false, message: 'User not found' });
    }
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/users', headers: bearer(tokenA) });
    expect(list.json().users.map((u: { id: string }) => u.id)).not.toContain(userOfB.id);
    // nothing changed for B's user
    const tokenB = await loginToken(t.app, adminB.username);
    const ledger = await t.app.inject({
      method: 'GET',
      url: `/api/admin/users/${userOfB.id}/ledger`,
      headers: bearer(tokenB),
    });
    expect(ledger.json().entries.map((e: { delta: number }) => e.delta)).toEqual([5]);
  });
});
