import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/credits/credits.ts';
import { accounts, authTokens, users } from '../../src/db/schema.ts';
import { buildAccount, expectLedgerChain } from '../fakes/messaging.ts';
import { bearer, buildAdmin, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';
import { recordFigure } from './support/figures.ts';

/** Races and floods on sign-up, sign-in, instances and the balance. */
describe.each(DB_KINDS)('security races (%s)', (kind) => {
  const section = `security races (${kind})`;
  const t = testAppFor(kind, { SIGNUP_ENABLED: 'true' });

  it('concurrent registration of the same names: one account each, no 5xx', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `racer${kind}${i}`);
    const answers = await Promise.all(
      names.flatMap((name, i) =>
        [0, 1, 2].map((k) =>
          t.app.inject({
            method: 'POST',
            url: '/api/auth/register',
            payload: {
              username: k === 1 ? name.toUpperCase() : name,
              password: 'long-enough-1',
              name: 'Racer',
            },
            remoteAddress: `198.18.${i}.${k}`,
          }),
        ),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    const created = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .where(sql`lower(${users.username}) like ${`racer${kind}%`}`);
    recordFigure(section, 'registrations answered 5xx', statuses.filter((s) => s >= 500).length, true);
    recordFigure(section, 'accounts created for 10 names × 3 racers', created[0]!.n);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(20);
    expect(created[0]!.n).toBe(10);
  });

  it('create-instance raced ten times by a single-session user: one instance', async () => {
    const user = await buildUser(t, { isMultisessionSupported: false });
    const token = await loginToken(t.app, user.username);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/create-instance',
          headers: bearer(token),
          payload: { phoneNumber: `9198000001${String(i).padStart(2, '0')}`, sessionName: `Race ${i}` },
        }),
      ),
    );
    const rows = await t.db.select().from(accounts).where(eq(accounts.userId, user.id));
    recordFigure(
      section,
      'create-instance races: 5xx',
      answers.filter((a) => a.statusCode >= 500).length,
      true,
    );
    recordFigure(section, 'create-instance races: instances beyond the one allowed', rows.length - 1, true);
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(rows).toHaveLength(1);
  });

  it('an admin debit racing sends: never below zero, ledger equals balance', async () => {
    const admin = await buildAdmin(t);
    const adminToken = await loginToken(t.app, admin.username);
    const user = await buildUser(t, { managedBy: admin.id, credits: 100 });
    const token = await loginToken(t.app, user.username);
    const accountId = await buildAccount(t, user.id);
    const sends = Array.from({ length: 20 }, (_, k) =>
      t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendIndividualMessage`,
        headers: bearer(token),
        payload: {
          chatIds: Array.from(
            { length: 10 },
            (_, i) => `91987${String(k).padStart(2, '0')}${String(i).padStart(3, '0')}`,
          ),
          content: 'race',
        },
      }),
    );
    const debits = Array.from({ length: 10 }, () =>
      t.app.inject({
        method: 'POST',
        url: `/api/admin/users/${user.id}/credits`,
        headers: bearer(adminToken),
        payload: { amount: -30, note: 'race' },
      }),
    );
    const [sent, debited] = await Promise.all([Promise.all(sends), Promise.all(debits)]);
    const [row] = await t.db.select({ credits: users.credits }).from(users).where(eq(users.id, user.id));
    const okSends = sent.filter((s) => s.statusCode === 200).length;
    const okDebits = debited.filter((d) => d.statusCode === 200).length;
    const spent = okSends * 10 + okDebits * 30;
    const errors = [...sent, ...debited].filter((r) => r.statusCode >= 500).length;
    recordFigure(section, 'debit vs sends: accepted sends / debits', `${okSends} / ${okDebits}`);
    recordFigure(section, 'debit vs sends: negative balance', row!.credits < 0 ? 1 : 0, true);
    recordFigure(
      section,
      'debit vs sends: ledger minus balance',
      (await ledgerSum(t.db, user.id)) - row!.credits,
      true,
    );
    recordFigure(section, 'debit vs sends: 5xx', errors, true);
    expect(row!.credits).toBe(100 - spent);
    // Each ledger row follows from the one before it, and the last is the balance.
    await expectLedgerChain(t.db, user.id);
    expect(errors).toBe(0);
  });

  it('spraying 200 usernames from one address: 429 after the per-address limit, no token', async () => {
    const victim = await buildUser(t);
    const tokensBefore = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(authTokens)
      .where(eq(authTokens.userId, victim.id));
    let limited = 0;
    let unauthorised = 0;
    for (let i = 0; i < 200; i++) {
      // Every 40th try is the victim with the right password: the sprayer guessed it.
      const hit = i % 40 === 39;
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: {
          username: hit ? victim.username : `sprayed${i}`,
          password: hit ? 'password123' : 'Summer2026!',
        },
        remoteAddress: '203.0.113.200',
      });
      if (res.statusCode === 429) limited += 1;
      if (res.statusCode === 401) unauthorised += 1;
    }
    const tokensAfter = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(authTokens)
      .where(eq(authTokens.userId, victim.id));
    const issuedAfterLimit = tokensAfter[0]!.n - tokensBefore[0]!.n - 1; // the 40th try came before the limit
    recordFigure(section, 'spray: attempts / 401 / 429', `200 / ${unauthorised} / ${limited}`);
    recordFigure(section, 'spray: tokens issued after the per-address limit', issuedAfterLimit, true);
    expect(unauthorised).toBe(50);
    expect(limited).toBe(149);
    expect(issuedAfterLimit).toBe(0);
  });
});
