import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { keepIncoming } from '../../src/messaging/inbox/incoming.ts';
import { buildAccount, buildJob } from '../fakes/messaging.ts';
import {
  bearer,
  buildAdmin,
  buildUser,
  DB_KINDS,
  loginToken,
  OPEN_POLICY,
  PUBLIC_ROUTES,
  testAppFor,
} from '../helpers.ts';

/** Fills `:param` placeholders with a plausible but non-existent value. */
const concrete = (url: string) =>
  url.replace(/:([A-Za-z]+)/g, (_m, name: string) => `x-${name}-1`).replace('*', 'x');

describe.each(DB_KINDS)('access on %s', (kind) => {
  const t = testAppFor(kind, { ALLOW_PRIVATE_WEBHOOKS: 'true', SECRET_KEY: 'ab'.repeat(32) });

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
      if (PUBLIC_ROUTES.has(key)) {
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
    expect(adminRoutes.length).toBe(8);
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

  /**
   * Every route that names a user's account, job, contact list, webhook or key, called by
   * someone it is not theirs: another user, and an admin who does not manage the owner. Each
   * answers 404 with the resource's own text, as if it did not exist, and changes nothing.
   * `payload`: a valid body, so that the refusal is the access check and not the validation.
   */
  const NOT_YOURS: Record<string, string> = {
    sessionId: 'Session not found',
    jobId: 'Job not found',
    userId: 'User not found',
    listId: 'Contact list not found',
    webhookId: 'Webhook not found',
    keyId: 'API key not found',
    personId: 'Conversation not found',
  };
  /** The send routes and the account's limits answer with the spec's text for an account not yours. */
  const NO_ACCOUNT = new Set([
    'POST /api/session/:sessionId/sendBulkMessage',
    'POST /api/session/:sessionId/sendIndividualMessage',
    'POST /api/session/:sessionId/send-estimate',
    'POST /api/session/:sessionId/sendStatus',
    'GET /api/session/:sessionId/status-audience',
    'GET /api/session/:sessionId/policy',
    'PUT /api/session/:sessionId/policy',
  ]);
  const PAYLOADS: Record<string, object> = {
    'POST /api/session/:sessionId/sendBulkMessage': {
      chatIds: ['120363000000000001@g.us'],
      type: 'string',
      content: 'x',
    },
    'POST /api/session/:sessionId/sendIndividualMessage': {
      chatIds: ['919800015838'],
      type: 'string',
      content: 'x',
    },
    'POST /api/session/:sessionId/send-estimate': {
      chatIds: ['919800015838'],
      type: 'string',
      content: 'x',
    },
    'POST /api/session/:sessionId/sendStatus': {
      type: 'text',
      content: 'Open on Sunday',
      backgroundColor: '#FF7A00',
      font: 8,
      audience: { everyoneMessaged: true },
    },
    'POST /api/session/:sessionId/pairing-code': { phoneNumber: '919800015838' },
    'POST /api/session/:sessionId/channels': { name: 'News' },
    'POST /api/session/:sessionId/groups': { subject: 'Regulars', members: ['919800015838'] },
    'POST /api/session/:sessionId/channels/add': { invite: 'https://whatsapp.com/channel/0029VaNews01' },
    'PUT /api/session/:sessionId/policy': OPEN_POLICY,
    'POST /api/simulator/sessions/:sessionId/inbound': { from: '919800015838', text: 'hi' },
    'PATCH /api/message-jobs-details/:jobId': { scheduleTime: '2999-01-01T00:00:00.000Z' },
    'POST /api/message-jobs-details/:jobId/retry': {},
    'POST /api/message-jobs/:jobId/follow-up': { segment: 'replied', sessionId: 'any', content: 'x' },
    'POST /api/message-jobs/:jobId/segments/:segment/contact-list': { name: 'Replied' },
    'PUT /api/session/:sessionId/auto-replies': {
      rules: [{ keyword: 'price', match: 'contains', reply: { content: 'x' } }],
    },
    'PUT /api/session/:sessionId/proxy': { url: null },
    'POST /api/session/:sessionId/cost-estimate': { templateName: 'hello', language: 'en', recipients: 1 },
    'POST /api/inbox/:personId/reply': { sessionId: 'any', type: 'string', content: 'x' },
    'POST /api/inbox/:personId/state': { state: 'done' },
  };

  it("answers 404 to another user and to an admin who does not manage the owner, on every route naming the owner's things", async () => {
    const admin = await buildAdmin(t);
    const owner = await buildUser(t, { managedBy: admin.id, credits: 5 });
    const ownerToken = await loginToken(t.app, owner.username);
    const accountId = await buildAccount(t, owner.id);
    const jobId = await buildJob(t, owner.id, accountId, {
      status: 'scheduled',
      scheduledAt: new Date(Date.now() + 3_600_000),
    });
    const made = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: bearer(ownerToken), payload });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const webhookId = (
      await made('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['job.finished'] })
    ).webhook.id;
    const keyId = (await made('/api/api-keys', { name: 'ci', password: 'password123' })).id;
    const list = new FormData();
    list.append('name', 'Mine');
    list.append('file', new Blob(['phone\n9800015838\n']), 'a.csv');
    const listId = (
      await t.app.inject({
        method: 'POST',
        url: '/api/contact-lists/import',
        headers: bearer(ownerToken),
        payload: list,
      })
    ).json().list.id;
    const personId = await threadWithFile(owner.id, accountId, '919800015838');
    const ids: Record<string, string> = {
      sessionId: accountId,
      jobId,
      userId: owner.id,
      listId,
      webhookId,
      keyId,
      personId,
    };
    /** The resource a route names, by its parameter (`:id` is named by its path). */
    const paramOf = (url: string) => {
      const named = Object.keys(NOT_YOURS).find((p) => url.includes(`:${p}`));
      if (named) return named;
      if (!url.includes(':id')) return undefined;
      if (url.startsWith('/api/contact-lists/')) return 'listId';
      if (url.startsWith('/api/webhooks/')) return 'webhookId';
      if (url.startsWith('/api/api-keys/')) return 'keyId';
      return undefined;
    };
    const routes = t.app.routeList
      // Meta's webhook is public (PUBLIC_ROUTES, helpers.ts): its verify token and signature guard it.
      .filter(
        (r) =>
          !r.url.startsWith('/api/admin') && !PUBLIC_ROUTES.has(`${r.method} ${r.url}`) && paramOf(r.url),
      )
      .map((r) => ({ ...r, param: paramOf(r.url)! }));
    expect(routes.length).toBeGreaterThan(30);

    const stranger = await buildUser(t);
    const otherAdmin = await buildAdmin(t);
    const answers: string[] = [];
    for (const who of [stranger, otherAdmin]) {
      const token = await loginToken(t.app, who.username);
      for (const route of routes) {
        const key = `${route.method} ${route.url}`;
        const res = await t.app.inject({
          method: route.method as 'GET',
          url:
            route.url
              .replace(`:${route.param}`, ids[route.param]!)
              .replace(':id', ids[route.param]!)
              .replace(':segment', 'replied')
              .replace(':messageId', String(await firstMessageId(personId))) +
            (route.url.endsWith('/retryable') ? `?jobIds=${jobId}` : ''),
          headers: bearer(token),
          ...(PAYLOADS[key] ? { payload: PAYLOADS[key] } : {}),
        });
        const message = res.headers['content-type']?.toString().includes('json')
          ? res.json().message
          : res.body;
        const expected = NO_ACCOUNT.has(key) ? 'No active session found' : NOT_YOURS[route.param];
        if (res.statusCode !== 404 || message !== expected)
          answers.push(`${key}: ${res.statusCode} ${message}`);
      }
    }
    expect(answers).toEqual([]);

    // Nothing changed for the owner.
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(ownerToken) });
    expect(
      (await get('/api/sessions')).json().sessions.map((s: { sessionId: string }) => s.sessionId),
    ).toEqual([accountId]);
    expect((await get(`/api/message-jobs-details/${jobId}`)).json().job).toMatchObject({
      id: jobId,
      status: 'scheduled',
    });
    expect((await get(`/api/contact-lists/${listId}/contacts`)).statusCode).toBe(200);
    expect((await get('/api/webhooks')).json().webhooks.map((w: { id: string }) => w.id)).toEqual([
      webhookId,
    ]);
    expect((await get('/api/api-keys')).json().keys.map((k: { id: string }) => k.id)).toEqual([keyId]);
    expect((await get('/api/inbox/counts')).json().unreadThreads).toBe(1);
    expect((await get(`/api/inbox/${personId}`)).json().thread).toMatchObject({ state: 'open' });
    // Lists answer only what is one's own.
    const strangerToken = await loginToken(t.app, stranger.username);
    for (const url of [
      '/api/sessions',
      '/api/contact-lists',
      '/api/webhooks',
      '/api/api-keys',
      '/api/inbox',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(strangerToken) });
      expect(JSON.stringify(res.json()), url).not.toContain(owner.id);
      for (const id of [accountId, listId, webhookId, keyId, personId])
        expect(res.body, url).not.toContain(id);
    }
  });

  /** A thread of the owner's Inbox: `phone` sent the owner's account a file. Its person's id. */
  const threadWithFile = async (userId: string, accountId: string, phone: string) =>
    (await keepIncoming(
      t.ctx,
      { accountId, userId },
      {
        from: `${phone}@s.whatsapp.net`,
        text: null,
        messageId: `ACCESS${phone}`,
        type: 'image',
        media: {
          mime: 'image/png',
          fileName: null,
          ref: JSON.stringify({ mime: 'image/png', data: 'iVBORw==' }),
        },
      },
    ))!;

  const firstMessageId = async (personId: string) =>
    (
      await queryRows<{ id: string }>(
        t.db,
        sql`SELECT min(id)::text AS id FROM inbox_messages WHERE person_id = ${personId}`,
      )
    )[0]!.id;

  it("lets the managing admin read its users' jobs and sessions but not act on them", async () => {
    const admin = await buildAdmin(t);
    const owner = await buildUser(t, { managedBy: admin.id });
    const adminToken = await loginToken(t.app, admin.username);
    const accountId = await buildAccount(t, owner.id);
    const jobId = await buildJob(t, owner.id, accountId);
    const personId = await threadWithFile(owner.id, accountId, '919800015839');
    const bodies: Record<string, object> = {
      reply: { sessionId: accountId, type: 'string', content: 'x' },
      state: { state: 'done' },
    };
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string) =>
      t.app.inject({
        method,
        url,
        headers: bearer(adminToken),
        ...(method === 'POST' ? { payload: bodies[url.split('/').pop()!] ?? {} } : {}),
      });
    const table: Array<[string, 'GET' | 'POST' | 'DELETE', string, number]> = [
      ['the jobs list', 'GET', `/api/message-jobs/${owner.id}`, 200],
      ['a job', 'GET', `/api/message-jobs-details/${jobId}`, 200],
      ['a session', 'GET', `/api/${accountId}/status`, 200],
      ['retry a job', 'POST', `/api/message-jobs-details/${jobId}/retry`, 404],
      ['delete a job', 'DELETE', `/api/message-jobs-details/${jobId}`, 404],
      ['restart a session', 'POST', `/api/session/${accountId}/restart`, 404],
      ['the inbox', 'GET', `/api/inbox?userId=${owner.id}`, 200],
      ['a thread', 'GET', `/api/inbox/${personId}?userId=${owner.id}`, 200],
      ['the unread count', 'GET', `/api/inbox/counts?userId=${owner.id}`, 200],
      [
        'a file of a thread',
        'GET',
        `/api/inbox/${personId}/media/${await firstMessageId(personId)}?userId=${owner.id}`,
        200,
      ],
      ['mark a thread done', 'POST', `/api/inbox/${personId}/state`, 403],
      ['answer a thread', 'POST', `/api/inbox/${personId}/reply`, 403],
    ];
    const got = [];
    for (const [what, method, url] of table)
      got.push([what, method, url, (await call(method, url)).statusCode]);
    expect(got).toEqual(table);
    // The admin's reading left the thread unread for its owner, and its state as it was.
    const [thread] = await queryRows<{ unread: number; state: string }>(
      t.db,
      sql`SELECT unread, state FROM inbox_threads WHERE person_id = ${personId}`,
    );
    expect(thread).toEqual({ unread: 1, state: 'open' });
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
