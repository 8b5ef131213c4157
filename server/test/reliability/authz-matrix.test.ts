import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authTokens } from '../../src/db/schema.ts';
import { sha256 } from '../../src/ids.ts';
import {
  bearer,
  buildAdmin,
  buildUser,
  createTestApp,
  loginToken,
  PUBLIC_ROUTES,
  type TestApp,
} from '../helpers.ts';
import { recordFigure } from './support/figures.ts';

/** A body that would succeed for the owner, so that a missing ownership check shows as a success. */
function plausibleBody(url: string, ids: { sessionId: string; userId: string }): object {
  if (url.includes('sendBulkMessage'))
    return { chatIds: ['120363000000000001@g.us'], type: 'string', content: 'hi' };
  if (url.includes('sendIndividualMessage')) return { chatIds: ['919812345678'], content: 'hi' };
  if (url.endsWith('/retry')) return { sessionId: ids.sessionId };
  if (url.endsWith('/credits')) return { amount: 5 };
  if (url === '/api/admin/users/:id') return { name: 'Changed by someone else' };
  return {};
}

describe('authorisation matrix over every registered route', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('pglite');
  });
  afterAll(() => t.close());

  it('lets no one in where they do not belong', async () => {
    const adminA = await buildAdmin(t);
    const adminB = await buildAdmin(t);
    const owner = await buildUser(t, { managedBy: adminA.id, credits: 100 });
    const other = await buildUser(t, { managedBy: adminA.id, credits: 100 });
    const ownerToken = await loginToken(t.app, owner.username);
    const otherToken = await loginToken(t.app, other.username);
    const adminBToken = await loginToken(t.app, adminB.username);
    // The owner's own admin, through an API key: a key acts on its own user's resources only.
    const adminAKey = (
      await t.app.inject({
        method: 'POST',
        url: '/api/api-keys',
        headers: bearer(await loginToken(t.app, adminA.username)),
        payload: { name: 'admin script', password: 'password123' },
      })
    ).json().key as string;
    const expiredToken = await loginToken(t.app, owner.username);
    await t.db
      .update(authTokens)
      .set({ expiresAt: sql`now() - interval '1 minute'` })
      .where(sql`${authTokens.tokenHash} = ${sha256(expiredToken)}`);

    // The owner's resources: an account and a job.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/create-instance',
      headers: bearer(ownerToken),
      payload: { phoneNumber: '919800000001', sessionName: 'Owner phone' },
    });
    expect(created.statusCode).toBe(200);
    const accountId = created.json().sessionId as string;
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(ownerToken),
      payload: { chatIds: ['919812345678', '919812340000'], content: 'Owner message' },
    });
    expect(sent.statusCode).toBe(200);
    const jobId = sent.json().jobId as string;
    const ids = { sessionId: accountId, jobId, userId: owner.id, id: owner.id };
    const fill = (url: string) =>
      url.replace(/:([A-Za-z]+)/g, (_m, name: string) => ids[name as keyof typeof ids] ?? `x-${name}`);

    const routes = t.app.routeList.filter((r) => r.url.startsWith('/api/') && !r.url.startsWith('/api/docs'));
    const leaks: string[] = [];
    let checks = 0;
    const call = (method: string, url: string, token: string | null, payload: object) =>
      t.app.inject({
        method: method as 'GET',
        url: fill(url),
        headers: token ? bearer(token) : {},
        payload: method === 'GET' || method === 'DELETE' ? undefined : payload,
      });

    for (const route of routes) {
      const key = `${route.method} ${route.url}`;
      if (PUBLIC_ROUTES.has(key)) continue;
      const body = plausibleBody(route.url, ids);
      // no token, expired token
      for (const [label, token] of [
        ['no token', null],
        ['expired token', expiredToken],
      ] as const) {
        checks += 1;
        const res = await call(route.method, route.url, token, body);
        if (res.statusCode !== 401) leaks.push(`${key} with ${label} → ${res.statusCode}`);
      }
      const isAdminRoute = route.url.startsWith('/api/admin');
      if (isAdminRoute) {
        // a USER on admin routes
        checks += 1;
        const asUser = await call(route.method, route.url, otherToken, body);
        if (asUser.statusCode !== 403) leaks.push(`${key} as USER → ${asUser.statusCode}`);
        // an ADMIN on a user it does not manage
        if (route.url.includes(':id')) {
          checks += 1;
          const res = await call(route.method, route.url, adminBToken, body);
          if (res.statusCode !== 404) leaks.push(`${key} as another admin → ${res.statusCode}`);
        }
        continue;
      }
      if (/:(sessionId|jobId|userId)/.test(route.url)) {
        // another user's token on the owner's resource
        checks += 1;
        const res = await call(route.method, route.url, otherToken, body);
        if (res.statusCode < 400) leaks.push(`${key} with another user's token → ${res.statusCode}`);
        // an admin who does not manage the owner
        checks += 1;
        const res2 = await call(route.method, route.url, adminBToken, body);
        if (res2.statusCode < 400) leaks.push(`${key} as an unrelated admin → ${res2.statusCode}`);
        // the managing admin's API key
        checks += 1;
        const res3 = await call(route.method, route.url, adminAKey, body);
        if (res3.statusCode < 400)
          leaks.push(`${key} with the managing admin's API key → ${res3.statusCode}`);
      } else if (route.method === 'GET') {
        // lists answer with the caller's own data only
        checks += 1;
        const res = await call(route.method, route.url, otherToken, body);
        if (res.body.includes(accountId) || res.body.includes(jobId))
          leaks.push(`${key} shows the owner's data`);
      }
    }

    // The owner's things are untouched after all that.
    const job = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(ownerToken),
    });
    expect(job.statusCode).toBe(200);
    const accounts = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(ownerToken) });
    expect(accounts.json().sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([accountId]);

    recordFigure('authorisation', 'routes in the matrix', routes.length);
    recordFigure('authorisation', 'checks made', checks);
    recordFigure('authorisation', 'routes that leak', leaks.length, true);
    expect(leaks).toEqual([]);
    expect(checks).toBeGreaterThan(40);
  });
});
