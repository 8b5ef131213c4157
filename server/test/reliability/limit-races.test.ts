import { and, eq, isNull, sql } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, webhooks } from '../../src/db/schema.ts';
import { bearer, buildUser, createTestApp, DB_KINDS, loginToken, type TestApp } from '../helpers.ts';
import { recordFigure } from './support/figures.ts';

const LIMIT = 10;
const IP_LIMIT = 50;

/**
 * Limits that must hold however many requests arrive at once. A sign-in
 * answered 401 had its password (or code) checked; one answered 429 did not.
 */
describe.each(DB_KINDS)('limit races (%s)', (kind) => {
  const section = `limit races (${kind})`;
  let t: TestApp;
  /** For the creation races: a sign-in limit that 30 parallel right passwords stay under. */
  let loose: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      LOGIN_RATE_LIMIT: String(LIMIT),
      LOGIN_IP_FAILURE_LIMIT: String(IP_LIMIT),
    });
    loose = await createTestApp(kind, { LOGIN_RATE_LIMIT: '100', ALLOW_PRIVATE_WEBHOOKS: 'true' });
  });
  afterAll(async () => {
    await t.close();
    await loose.close();
  });

  const login = (payload: object, ip: string) =>
    t.app.inject({ method: 'POST', url: '/api/auth/login', payload, remoteAddress: ip });
  const count = (answers: { statusCode: number }[], status: number) =>
    answers.filter((a) => a.statusCode === status).length;

  it('30 parallel wrong passwords for one account: at most LOGIN_RATE_LIMIT checked, the rest 429', async () => {
    const user = await buildUser(t);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        login({ username: user.username, password: `wrong-${i}` }, `198.51.100.${i + 1}`),
      ),
    );
    const checked = count(answers, 401);
    recordFigure(
      section,
      'parallel wrong passwords: 30 sent, checked / 429',
      `${checked} / ${count(answers, 429)}`,
    );
    recordFigure(
      section,
      'parallel wrong passwords: checked beyond the limit',
      Math.max(0, checked - LIMIT),
      true,
    );
    expect(checked).toBe(LIMIT);
    expect(count(answers, 429)).toBe(30 - LIMIT);
  });

  it('60 parallel unknown names from one address: at most the per-address limit checked', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        login({ username: `nobody-${kind}-${i}`, password: 'Summer2026!' }, '203.0.113.77'),
      ),
    );
    const checked = count(answers, 401);
    recordFigure(
      section,
      'parallel unknown names: 60 sent, checked / 429',
      `${checked} / ${count(answers, 429)}`,
    );
    recordFigure(
      section,
      'parallel unknown names: checked beyond the per-address limit',
      Math.max(0, checked - IP_LIMIT),
      true,
    );
    expect(checked).toBe(IP_LIMIT);
    expect(count(answers, 429)).toBe(60 - IP_LIMIT);
  });

  it('30 parallel wrong two-factor codes: at most LOGIN_RATE_LIMIT checked', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const setup = (
      await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', headers: bearer(token) })
    ).json() as { secret: string };
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.secret), digits: 6, period: 30 });
    const enabled = await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/enable',
      headers: bearer(token),
      payload: { code: totp.generate() },
    });
    expect(enabled.statusCode).toBe(200);
    const valid = new Set([-30_000, 0, 30_000].map((d) => totp.generate({ timestamp: Date.now() + d })));
    const wrong = Array.from({ length: 30 }, (_, i) => String(100000 + i * 7919)).filter(
      (c) => !valid.has(c),
    );
    const answers = await Promise.all(
      wrong
        .slice(0, 30)
        .map((otp, i) =>
          login({ username: user.username, password: 'password123', otp }, `192.0.2.${i + 1}`),
        ),
    );
    const checked = count(answers, 401);
    recordFigure(
      section,
      `parallel wrong codes: ${answers.length} sent, checked / 429`,
      `${checked} / ${count(answers, 429)}`,
    );
    recordFigure(
      section,
      'parallel wrong codes: checked beyond the limit',
      Math.max(0, checked - LIMIT),
      true,
    );
    expect(checked).toBe(LIMIT);
  });

  it('30 parallel API key creations: exactly 20 active keys', async () => {
    const user = await buildUser(loose);
    const token = await loginToken(loose.app, user.username);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        loose.app.inject({
          method: 'POST',
          url: '/api/api-keys',
          headers: bearer(token),
          payload: { name: `race ${i}`, password: 'password123' },
          remoteAddress: `192.0.2.${100 + i}`,
        }),
      ),
    );
    const [row] = await loose.db
      .select({ n: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, user.id), isNull(apiKeys.revokedAt)));
    recordFigure(
      section,
      'parallel API key creations: 30 sent, 200 / 400',
      `${count(answers, 200)} / ${count(answers, 400)}`,
    );
    recordFigure(
      section,
      'parallel API key creations: active keys beyond 20',
      Math.max(0, row!.n - 20),
      true,
    );
    recordFigure(
      section,
      'parallel API key creations: 5xx',
      answers.filter((a) => a.statusCode >= 500).length,
      true,
    );
    expect(row!.n).toBe(20);
    expect(count(answers, 200)).toBe(20);
  });

  it('20 parallel webhook creations: exactly 10 webhooks', async () => {
    const user = await buildUser(loose);
    const token = await loginToken(loose.app, user.username);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        loose.app.inject({
          method: 'POST',
          url: '/api/webhooks',
          headers: bearer(token),
          payload: { url: `http://127.0.0.1:9/hook/${i}`, events: ['job.finished'] },
        }),
      ),
    );
    const [row] = await loose.db
      .select({ n: sql<number>`count(*)::int` })
      .from(webhooks)
      .where(eq(webhooks.userId, user.id));
    recordFigure(
      section,
      'parallel webhook creations: 20 sent, 200 / 400',
      `${count(answers, 200)} / ${count(answers, 400)}`,
    );
    recordFigure(section, 'parallel webhook creations: webhooks beyond 10', Math.max(0, row!.n - 10), true);
    expect(row!.n).toBe(10);
    expect(count(answers, 200)).toBe(10);
  });
});
