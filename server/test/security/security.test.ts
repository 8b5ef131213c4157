import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messageJobs } from '../../src/db/schema.ts';
import { buildApp } from '../../src/http/app.ts';
import { buildAccount, buildGroups } from '../fakes/messaging.ts';
import {
  appsFor,
  bearer,
  buildAdmin,
  buildUser,
  DB_KINDS,
  login,
  loginToken,
  type TestApp,
} from '../helpers.ts';

describe.each(DB_KINDS)('security faults (%s)', (kind) => {
  const app = appsFor(kind);

  describe('the group route sends only to groups of the session’s list', () => {
    it('refuses a phone number and an unknown group with 400, and sends nothing', async () => {
      const t = await app();
      const user = await buildUser(t, { credits: 10, isBulkMessagingEnabled: false });
      const token = await loginToken(t.app, user.username);
      const accountId = await buildAccount(t, user.id);
      const [group] = await buildGroups(t, accountId, [3]);
      const send = (chatIds: string[]) =>
        t.app.inject({
          method: 'POST',
          url: `/api/session/${accountId}/sendBulkMessage`,
          headers: bearer(token),
          payload: { chatIds, type: 'string', content: 'hi' },
        });
      const phone = await send([group!, '919812345678@s.whatsapp.net']);
      expect(phone.statusCode).toBe(400);
      expect(phone.json()).toEqual({
        success: false,
        message: 'Not a group of this account: 919812345678@s.whatsapp.net',
      });
      const stranger = await send(['120363999999999999@g.us']);
      expect(stranger.json()).toEqual({
        success: false,
        message: 'Not a group of this account: 120363999999999999@g.us',
      });
      expect(await t.db.select().from(messageJobs).where(eq(messageJobs.userId, user.id))).toEqual([]);
      expect((await send([group!])).statusCode).toBe(200);
    });
  });

  describe('sign-in failures are counted per account and per address, in the database', () => {
    it('answers 429 for any username once one address has failed LOGIN_IP_FAILURE_LIMIT times', async () => {
      const t = await app({ LOGIN_IP_FAILURE_LIMIT: '5' });
      const victim = await buildUser(t);
      for (let i = 0; i < 5; i++) {
        const res = await login(t.app.inject.bind(t.app), {
          username: `nobody${i}`,
          password: 'wrong-password',
        });
        expect(res.statusCode).toBe(401);
      }
      const sprayed = await login(t.app.inject.bind(t.app), {
        username: victim.username,
        password: 'password123',
      });
      expect(sprayed.statusCode).toBe(429);
      expect(sprayed.json().message).toMatch(/^Too many login attempts\. Please try again in \d+ seconds\.$/);
      expect(sprayed.json().token).toBeUndefined();
      // Another address is not affected.
      const elsewhere = await login(
        t.app.inject.bind(t.app),
        { username: victim.username, password: 'password123' },
        { ip: '192.0.2.99' },
      );
      expect(elsewhere.statusCode).toBe(200);
    });

    it('locks an account on every process: the failures are in the database', async () => {
      const t = await app({ LOGIN_RATE_LIMIT: '3' });
      const second = await buildApp({ ...t.ctx });
      await second.ready();
      try {
        const user = await buildUser(t);
        for (let i = 0; i < 3; i++) {
          const res = await login(
            t.app.inject.bind(t.app),
            { username: user.username, password: 'wrong-password' },
            { ip: `198.51.100.${i}` },
          );
          expect(res.statusCode).toBe(401);
        }
        const onSecond = await login(second.inject.bind(second), {
          username: user.username,
          password: 'password123',
        });
        expect(onSecond.statusCode).toBe(429);
      } finally {
        await second.close();
      }
    });

    it('counts failures, not attempts, and a success clears the account’s count', async () => {
      const t = await app({ LOGIN_RATE_LIMIT: '3' });
      const user = await buildUser(t);
      const inject = t.app.inject.bind(t.app);
      for (let i = 0; i < 6; i++) {
        expect((await login(inject, { username: user.username, password: 'password123' })).statusCode).toBe(
          200,
        );
      }
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 2; i++)
          expect((await login(inject, { username: user.username, password: 'nope-nope' })).statusCode).toBe(
            401,
          );
        expect((await login(inject, { username: user.username, password: 'password123' })).statusCode).toBe(
          200,
        );
      }
    });
  });

  describe('TRUST_PROXY', () => {
    it('keys the limits on the client’s address behind a trusted proxy, and ignores the header otherwise', async () => {
      const behind = await app({ LOGIN_IP_FAILURE_LIMIT: '3', TRUST_PROXY: '1' });
      const direct = await app({ LOGIN_IP_FAILURE_LIMIT: '3' });
      for (const t of [behind, direct]) {
        const user = await buildUser(t);
        const inject = t.app.inject.bind(t.app);
        const from = (client: string) => ({ ip: '10.0.0.2', headers: { 'x-forwarded-for': client } });
        for (let i = 0; i < 3; i++)
          await login(inject, { username: `ghost${i}`, password: 'wrong-password' }, from('203.0.113.5'));
        const same = await login(
          inject,
          { username: user.username, password: 'password123' },
          from('203.0.113.5'),
        );
        expect(same.statusCode).toBe(429);
        const other = await login(
          inject,
          { username: user.username, password: 'password123' },
          from('203.0.113.6'),
        );
        // Behind the proxy another client is another address; without TRUST_PROXY a forged header changes nothing.
        expect(other.statusCode).toBe(t === behind ? 200 : 429);
      }
    });
  });

  describe('the raw body is checked before it is parsed', () => {
    it('refuses nesting over 32 levels and lists over 1,000,000 items with 400; brackets in text do not count', async () => {
      const t = await app();
      const raw = (payload: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          headers: { 'content-type': 'application/json' },
          payload,
          remoteAddress: '192.0.2.44',
        });
      const deep = (n: number) => `{"username":"a","password":"b","x":${'['.repeat(n)}${']'.repeat(n)}}`;
      const tooDeep = await raw(deep(32));
      expect(tooDeep.statusCode).toBe(400);
      expect(tooDeep.json()).toEqual({
        success: false,
        message: 'The request is nested too deeply (more than 32 levels)',
      });
      // 31 arrays inside the body object: 32 levels, parsed (and the unknown key dropped).
      expect((await raw(deep(31))).statusCode).toBe(401);
      const brackets = await raw(`{"username":"${'['.repeat(100)}","password":"b"}`);
      expect(brackets.statusCode).toBe(401);
      const long = await raw(`{"username":"a","password":"b","x":[${'0,'.repeat(1_000_000)}0]}`);
      expect(long.statusCode).toBe(413); // over the 1 MB limit of a route that sends no media
      const send = await t.app.inject({
        method: 'POST',
        url: '/api/session/x/sendBulkMessage',
        headers: {
          'content-type': 'application/json',
          ...bearer(await loginToken(t.app, (await buildUser(t)).username)),
        },
        payload: `{"chatIds":[${'0,'.repeat(1_000_000)}0]}`,
      });
      expect(send.statusCode).toBe(400);
      expect(send.json().message).toBe('The request has a list longer than 1,000,000 items');
    });

    it('looks for NUL characters after validation, in what the route uses', async () => {
      const t = await app();
      const user = await buildUser(t);
      const ignored = await login(t.app.inject.bind(t.app), {
        username: user.username,
        password: 'password123',
        unknown: 'a\u0000b',
      } as never);
      expect(ignored.statusCode).toBe(200);
      const refused = await login(t.app.inject.bind(t.app), {
        username: 'a\u0000b',
        password: 'password123',
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toBe('Text must not contain NUL characters');
      // A backslash followed by 'u0000' is text like any other, not a NUL.
      const literal = await login(t.app.inject.bind(t.app), {
        username: 'a\\u0000b',
        password: 'password123',
      });
      expect(literal.statusCode).toBe(401);
    });
  });

  describe('the auth hook checks the route’s own URL', () => {
    it('treats /%61pi/admin/users as /api/admin/users', async () => {
      const t = await app();
      const admin = await buildAdmin(t);
      const user = await buildUser(t, { managedBy: admin.id });
      const adminToken = await loginToken(t.app, admin.username);
      const userToken = await loginToken(t.app, user.username);
      const asAdmin = await t.app.inject({
        method: 'GET',
        url: '/%61pi/admin/users',
        headers: bearer(adminToken),
      });
      expect(asAdmin.statusCode).toBe(200);
      expect(asAdmin.json().users.map((u: { id: string }) => u.id)).toEqual([user.id]);
      const asUser = await t.app.inject({
        method: 'GET',
        url: '/%61pi/admin/users',
        headers: bearer(userToken),
      });
      expect(asUser.statusCode).toBe(403);
      expect(asUser.json()).toEqual({ success: false, message: 'Admin access required' });
    });
  });

  describe('HSTS and upgrade-insecure-requests only over TLS', () => {
    it('leaves them out over plain HTTP and sends them for a trusted X-Forwarded-Proto: https', async () => {
      const direct = await app();
      const behind = await app({ TRUST_PROXY: 'true' });
      const meta = (t: TestApp, proto?: string) =>
        t.app.inject({
          method: 'GET',
          url: '/api/meta',
          headers: proto ? { 'x-forwarded-proto': proto } : {},
        });
      for (const res of [await meta(direct), await meta(direct, 'https'), await meta(behind)]) {
        expect(res.headers['strict-transport-security']).toBeUndefined();
        expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
        expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      }
      const tls = await meta(behind, 'https');
      expect(tls.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(tls.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    });
  });

  describe('dates out of range, and answers no cache keeps', () => {
    it('refuses query dates outside 1970-9999 with 400 (jobs list and export), never 500', async () => {
      const t = await app();
      const user = await buildUser(t);
      const token = await loginToken(t.app, user.username);
      for (const query of [
        'from=-271821-04-20',
        'to=%2B275760-09-13T00:00:00.000Z',
        'from=10000-01-01',
        'from=1969-12-31',
      ])
        for (const path of [`/api/message-jobs/${user.id}`, `/api/message-jobs/${user.id}/export.csv`]) {
          const res = await t.app.inject({ method: 'GET', url: `${path}?${query}`, headers: bearer(token) });
          expect(res.statusCode, `${path}?${query}`).toBe(400);
          expect(res.json()).toEqual({ success: false, message: 'Dates must be between 1970 and 9999' });
        }
      const fine = await t.app.inject({
        method: 'GET',
        url: `/api/message-jobs/${user.id}?from=1970-01-01&to=9999-12-31`,
        headers: bearer(token),
      });
      expect(fine.statusCode).toBe(200);
    });

    it('sends Cache-Control: no-store on every /api answer (tokens, jobs, keys, errors)', async () => {
      const t = await app();
      const user = await buildUser(t);
      const signIn = await login(t.app.inject.bind(t.app), {
        username: user.username,
        password: 'password123',
      });
      const token = signIn.json().token as string;
      const answers = [
        signIn,
        ...(await Promise.all(
          [
            '/api/userDetails',
            `/api/message-jobs/${user.id}`,
            `/api/message-jobs/${user.id}/export.csv`,
            '/api/api-keys',
            '/api/contact-lists',
            '/api/no-such-route',
          ].map((url) => t.app.inject({ method: 'GET', url, headers: bearer(token) })),
        )),
        await t.app.inject({ method: 'GET', url: '/api/userDetails' }),
      ];
      expect(answers.map((a) => a.headers['cache-control'])).toEqual(answers.map(() => 'no-store'));
    });
  });
});
