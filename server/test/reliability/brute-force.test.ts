import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authTokens } from '../../src/db/schema.ts';
import { sha256 } from '../../src/ids.ts';
import { bearer, buildUser, createTestApp, loginToken, type TestApp } from '../helpers.ts';
import { recordFigure } from './support/figures.ts';

describe('brute force, token lifetime, security headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('pglite', { LOGIN_RATE_LIMIT: '10' });
  });
  afterAll(() => t.close());

  it('refuses logins beyond the limit with 429 and never hands out a token', async () => {
    const victim = await buildUser(t, { password: 'correct-horse-42' });
    const guesses = ['123456', 'password', 'qwerty', 'letmein', 'admin', 'welcome', 'iloveyou', 'monkey'];
    let limited = 0;
    let tokensAfterLimit = 0;
    let attempts = 0;
    for (let i = 0; i < 200; i++) {
      // the attacker slips the right password in now and then
      const password = i % 25 === 24 ? 'correct-horse-42' : `${guesses[i % guesses.length]}${i}`;
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: victim.username, password },
      });
      attempts += 1;
      if (res.statusCode === 429) {
        limited += 1;
        expect(res.json().message).toMatch(/^Too many login attempts\. Please try again in \d+ seconds\.$/);
        if (res.json().token) tokensAfterLimit += 1;
      } else if (i >= 10 && res.json().token) {
        tokensAfterLimit += 1;
      }
    }
    recordFigure('brute force', 'login attempts', attempts);
    recordFigure('brute force', 'answered 429', limited);
    recordFigure('brute force', 'tokens issued beyond the limit', tokensAfterLimit, true);
    expect(limited).toBe(190);
    expect(tokensAfterLimit).toBe(0);
  });

  it('expires tokens and revokes them at logout', async () => {
    const user = await buildUser(t);
    const tokens = [await loginToken(t.app, user.username), await loginToken(t.app, user.username)];
    await t.db
      .update(authTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(sql`${authTokens.tokenHash} = ${sha256(tokens[0]!)}`);
    const expired = await t.app.inject({
      method: 'GET',
      url: '/api/userDetails',
      headers: bearer(tokens[0]!),
    });
    await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(tokens[1]!) });
    const revoked = await t.app.inject({
      method: 'GET',
      url: '/api/userDetails',
      headers: bearer(tokens[1]!),
    });
    const accepted = [expired, revoked].filter((r) => r.statusCode !== 401).length;
    recordFigure('brute force', 'expired or revoked tokens accepted', accepted, true);
    expect(accepted).toBe(0);
  });

  it('sends the security headers on API answers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/meta' });
    const csp = String(res.headers['content-security-policy'] ?? '');
    const missing = [
      csp.includes("frame-ancestors 'none'") ? null : 'CSP frame-ancestors',
      csp.includes("default-src 'self'") ? null : 'CSP default-src',
      res.headers['x-content-type-options'] === 'nosniff' ? null : 'nosniff',
      res.headers['x-frame-options'] ? null : 'x-frame-options',
      // HSTS only over TLS (behind a TLS proxy: TRUST_PROXY + X-Forwarded-Proto); this is plain HTTP.
      res.headers['strict-transport-security'] ? 'hsts over plain HTTP' : null,
    ].filter(Boolean);
    recordFigure('brute force', 'security headers missing', missing.length, true);
    expect(missing).toEqual([]);
  });
});
