import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountRunner, startAccountRunner } from '../../src/accounts/runner.ts';
import { bearer, buildAdmin, buildUser, createTestApp, loginToken, type TestApp } from '../helpers.ts';
import { recordFigure } from './support/figures.ts';

const BAD_IDS = [
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  '%00',
  'x'.repeat(5000),
  "1' OR '1'='1",
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '%F0%9F%92%A9',
  '%E0%A4%A',
  'null',
  '-1',
  '0',
];

/** Deeply nested JSON text, built without recursion. */
const deepJson = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
/** Routes that check a signature over the raw body before reading it (Meta's webhook). */
const SIGNED = new Set(['/api/cloud/webhook/:sessionId']);

describe('hostile input on every JSON route', () => {
  let t: TestApp;
  let runner: AccountRunner;
  let userToken: string;
  let adminToken: string;
  let ids: Record<string, string>;
  let tried = 0;
  let slowest = 0;
  let serverErrors: string[] = [];
  let withoutMessage: string[] = [];

  beforeAll(async () => {
    t = await createTestApp('pglite', { LOGIN_RATE_LIMIT: '10000', LOGIN_IP_FAILURE_LIMIT: '1000000' });
    // Accounts driven as in the product: a route that waits for the driving node (the pairing
    // code, up to 30 s) gets its answer instead of waiting for a node that does not exist.
    runner = await startAccountRunner(t.ctx);
    const admin = await buildAdmin(t);
    const user = await buildUser(t, { managedBy: admin.id, credits: 1_000_000 });
    userToken = await loginToken(t.app, user.username);
    adminToken = await loginToken(t.app, admin.username);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/create-instance',
      headers: bearer(userToken),
      payload: { phoneNumber: '919800000002', sessionName: 'Fuzz phone' },
    });
    const accountId = created.json().sessionId as string;
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(userToken),
      payload: { chatIds: ['919812345678'], content: 'hello' },
    });
    ids = { sessionId: accountId, jobId: sent.json().jobId, userId: user.id, id: user.id };
  });
  afterAll(async () => {
    await runner.stop();
    await t.close();
  });

  async function send(method: string, url: string, payload: string | undefined, token: string) {
    tried += 1;
    const started = Date.now();
    const res = await t.app.inject({
      method: method as 'POST',
      url,
      headers: { ...bearer(token), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      payload,
    });
    const where = `${method} ${url.slice(0, 80)} ${payload === undefined ? '' : payload.slice(0, 60)}`;
    slowest = Math.max(slowest, Date.now() - started);
    if (res.statusCode >= 500) serverErrors.push(`${where} → ${res.statusCode} ${res.body.slice(0, 120)}`);
    if (res.statusCode >= 400) {
      let ok = false;
      try {
        const body = res.json();
        ok = typeof body.message === 'string' && body.message.length > 0 && body.success === false;
      } catch {
        ok = false;
      }
      if (!ok) withoutMessage.push(`${where} → ${res.statusCode} ${res.body.slice(0, 80)}`);
    }
    return res;
  }

  const routes = () =>
    t.app.routeList.filter(
      (r) => r.url.startsWith('/api/') && !r.url.startsWith('/api/docs') && r.url !== '/api/auth/logout',
    );
  // Meta's prices apply to every user: only an admin sets them (docs/accounts.md).
  const tokenFor = (url: string) =>
    url.startsWith('/api/admin') || url === '/api/cloud/prices' ? adminToken : userToken;
  const fill = (url: string, override?: string) =>
    url.replace(/:([A-Za-z]+)/g, (_m, name: string) => override ?? ids[name] ?? 'x');

  it('answers arbitrary JSON bodies, wrong types and unknown keys without a 5xx', async () => {
    const bodyRoutes = routes().filter((r) => ['POST', 'PATCH', 'PUT'].includes(r.method));
    expect(bodyRoutes.length).toBeGreaterThan(8);
    for (const route of bodyRoutes) {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue({ maxDepth: 4 }),
            fc.dictionary(
              fc.constantFrom(
                'username',
                'password',
                'name',
                'chatIds',
                'type',
                'content',
                'mime',
                'data',
                'scheduleTime',
                'sessionId',
                'amount',
                'phoneNumber',
                'sessionName',
                'credits',
                'role',
                'disabled',
                '__proto__',
                'constructor',
              ),
              fc.jsonValue({ maxDepth: 3 }),
            ),
          ),
          async (body) => {
            await send(route.method, fill(route.url), JSON.stringify(body), tokenFor(route.url));
          },
        ),
        { numRuns: 60, seed: 4242 },
      );
    }
  });

  it('answers malformed JSON, huge strings, deep nesting and oversize bodies with 4xx and a message', async () => {
    const bodyRoutes = routes().filter((r) => ['POST', 'PATCH', 'PUT'].includes(r.method));
    const huge = JSON.stringify({ content: 'a'.repeat(3_000_000), username: 'b'.repeat(3_000_000) });
    for (const route of bodyRoutes) {
      const url = fill(route.url);
      const token = tokenFor(route.url);
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 200 }), async (raw) => {
          // anything that does not parse must be refused cleanly
          let parses = true;
          try {
            JSON.parse(raw);
          } catch {
            parses = false;
          }
          const res = await send(route.method, url, raw, token);
          // A signed route checks the signature over the bytes before it reads them: 401.
          if (!parses) expect(SIGNED.has(route.url) ? [401, 429] : [400, 429]).toContain(res.statusCode);
        }),
        { numRuns: 25, seed: 7 },
      );
      const tooBig = await send(route.method, url, huge, token);
      expect([400, 413, 429]).toContain(tooBig.statusCode);
      const deep = await send(route.method, url, deepJson(20_000), token);
      expect(deep.statusCode).toBeLessThan(500);
      const deepObject = await send(route.method, url, `{"content":${deepJson(5_000)}}`, token);
      expect(deepObject.statusCode).toBeLessThan(500);
    }
  });

  it('answers bad ids and path traversal in every id with 4xx and a message', async () => {
    const idRoutes = routes().filter((r) => r.url.includes(':'));
    for (const route of idRoutes) {
      for (const bad of BAD_IDS) {
        const res = await send(
          route.method,
          fill(route.url, bad),
          route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
          tokenFor(route.url),
        );
        expect(
          res.statusCode,
          `${route.method} ${route.url} with ${bad.slice(0, 20)}`,
        ).toBeGreaterThanOrEqual(400);
      }
      await fc.assert(
        fc.asyncProperty(fc.string({ minLength: 1, maxLength: 120 }), async (id) => {
          await send(
            route.method,
            fill(route.url, encodeURIComponent(id)),
            route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
            tokenFor(route.url),
          );
        }),
        { numRuns: 30, seed: 99 },
      );
    }
  });

  it('records the figures', () => {
    recordFigure('hostile input', 'requests tried', tried);
    recordFigure('hostile input', 'slowest answer (ms)', slowest);
    recordFigure('hostile input', '5xx answers', serverErrors.length, true);
    recordFigure('hostile input', 'error answers without a JSON message', withoutMessage.length, true);
    expect(serverErrors.slice(0, 40)).toEqual([]);
    expect(withoutMessage.slice(0, 40)).toEqual([]);
    expect(tried).toBeGreaterThan(1000);
    serverErrors = [];
    withoutMessage = [];
  });
});
