import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/client.ts';
import { auditLog, creditLedger, users } from '../../src/db/schema.ts';
import {
  bearer,
  buildAdmin,
  buildUser,
  createPostgresDatabaseUrl,
  DB_KINDS,
  loginToken,
  cli as operatorCli,
  testAppFor,
} from '../helpers.ts';

type Entry = {
  actor: string;
  actorId: string | null;
  action: string;
  targetUserId: string | null;
  targetUsername: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
};

describe.each(DB_KINDS)('the audit log on %s', (kind) => {
  const t = testAppFor(kind);

  const audit = async (token: string, query = '') => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/admin/audit${query}`,
      headers: bearer(token),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { entries: Entry[]; total: number };
  };

  it('records admin actions, sign-ins and failed sign-ins with who, what, whom and the address', async () => {
    const admin = await buildAdmin(t);
    const adminToken = await loginToken(t.app, admin.username);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/users',
      headers: bearer(adminToken),
      payload: { username: 'audited_shop', password: 'secret-password', name: 'Shop', credits: 10 },
    });
    const shopId = created.json().user.id as string;
    const patch = (payload: object) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${shopId}`,
        headers: bearer(adminToken),
        payload,
      });
    await patch({ is_bulk_messaging_enabled: true });
    await patch({ password: 'new-secret-password' });
    await patch({ disabled: true });
    await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${shopId}/credits`,
      headers: bearer(adminToken),
      payload: { amount: 25, note: 'Invoice 42' },
    });
    // refused or invalid calls change nothing and are not admin actions
    await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${shopId}/credits`,
      headers: bearer(adminToken),
      payload: { amount: 0 },
    });
    await patch({ disabled: false });
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'audited_shop', password: 'not-the-password' },
    });
    expect(wrong.statusCode).toBe(401);
    await loginToken(t.app, 'audited_shop', 'new-secret-password');

    const { entries, total } = await audit(adminToken, `?userId=${shopId}`);
    expect(total).toBe(entries.length);
    const lines = entries.reverse().map((e) => [e.actor, e.action, e.targetUsername, e.details]);
    expect(lines).toEqual([
      [
        admin.username,
        'user.create',
        'audited_shop',
        { username: 'audited_shop', name: 'Shop', credits: 10 },
      ],
      [admin.username, 'user.update', 'audited_shop', { is_bulk_messaging_enabled: true }],
      [admin.username, 'user.update', 'audited_shop', { password: 'changed' }],
      [admin.username, 'user.update', 'audited_shop', { disabled: true }],
      [admin.username, 'user.credits', 'audited_shop', { amount: 25, note: 'Invoice 42', balance: 35 }],
      [admin.username, 'user.update', 'audited_shop', { disabled: false }],
      ['audited_shop', 'auth.login-failed', 'audited_shop', { reason: 'Invalid username or password' }],
      ['audited_shop', 'auth.login', 'audited_shop', null],
    ]);
    expect(entries.every((e) => e.ip === '127.0.0.1')).toBe(true);
    expect(JSON.stringify(entries)).not.toContain('secret-password');
    expect(entries.find((e) => e.action === 'auth.login-failed')!.actorId).toBeNull();
  });

  it('shows an admin only what concerns its own users, and pages newest first', async () => {
    const adminA = await buildAdmin(t);
    const adminB = await buildAdmin(t, { managedBy: null });
    const userOfB = await buildUser(t, { managedBy: adminB.id });
    const tokenA = await loginToken(t.app, adminA.username);
    const tokenB = await loginToken(t.app, adminB.username);
    for (const amount of [1, 2, 3])
      await t.app.inject({
        method: 'POST',
        url: `/api/admin/users/${userOfB.id}/credits`,
        headers: bearer(tokenB),
        payload: { amount },
      });
    const seenByA = await audit(tokenA);
    expect(seenByA.entries.some((e) => e.targetUserId === userOfB.id)).toBe(false);
    const other = await t.app.inject({
      method: 'GET',
      url: `/api/admin/audit?userId=${userOfB.id}`,
      headers: bearer(tokenA),
    });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ success: false, message: 'User not found' });

    const page1 = await audit(tokenB, `?userId=${userOfB.id}&limit=2`);
    const page2 = await audit(tokenB, `?userId=${userOfB.id}&limit=2&offset=2`);
    expect(page1.total).toBe(3);
    expect(page1.entries.map((e) => e.details?.amount)).toEqual([3, 2]);
    expect(page2.entries.map((e) => e.details?.amount)).toEqual([1]);
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/admin/audit?limit=500',
      headers: bearer(tokenB),
    });
    expect(bad.statusCode).toBe(400);
  });

  it("writes the line in the action's own transaction: an action whose line cannot be written is undone", async () => {
    const admin = await buildAdmin(t);
    const shop = await buildUser(t, { managedBy: admin.id, credits: 7, name: 'Shop' });
    const adminToken = await loginToken(t.app, admin.username);
    const ledgerRows = async () =>
      (await t.db.select().from(creditLedger).where(eq(creditLedger.userId, shop.id))).length;
    const ledgerBefore = await ledgerRows();
    await t.db.execute(sql`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql
      AS $$ BEGIN RAISE EXCEPTION 'the audit log is unavailable'; END $$`);
    await t.db.execute(sql`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log
      FOR EACH ROW EXECUTE FUNCTION refuse_audit()`);
    try {
      const call = (method: 'POST' | 'PATCH', url: string, payload: object) =>
        t.app.inject({ method, url, headers: bearer(adminToken), payload });
      const answers = [
        await call('POST', `/api/admin/users/${shop.id}/credits`, { amount: 25 }),
        await call('PATCH', `/api/admin/users/${shop.id}`, { name: 'Renamed' }),
        await call('POST', '/api/admin/users', {
          username: 'never_made',
          password: 'secret-password',
          name: 'N',
        }),
      ];
      expect(answers.map((a) => a.statusCode)).toEqual([500, 500, 500]);
      const [row] = await t.db.select().from(users).where(eq(users.id, shop.id));
      expect([row!.credits, row!.name]).toEqual([7, 'Shop']);
      expect(await ledgerRows()).toBe(ledgerBefore);
      expect(await t.db.select().from(users).where(eq(users.username, 'never_made'))).toEqual([]);
    } finally {
      await t.db.execute(sql`DROP TRIGGER refuse_audit ON audit_log`);
      await t.db.execute(sql`DROP FUNCTION refuse_audit()`);
    }
    // The same actions, recorded: each line is in place when the answer arrives.
    const granted = await t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${shop.id}/credits`,
      headers: bearer(adminToken),
      payload: { amount: 25 },
    });
    expect(granted.json().credits).toBe(32);
    const lines = await t.db.select().from(auditLog).where(eq(auditLog.targetUserId, shop.id));
    expect(lines.map((l) => [l.action, l.details])).toEqual([['user.credits', { amount: 25, balance: 32 }]]);
  });

  it('records key and webhook changes of the user', async () => {
    const admin = await buildAdmin(t);
    const user = await buildUser(t, { managedBy: admin.id });
    const token = await loginToken(t.app, user.username);
    const key = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: bearer(token),
      payload: { name: 'ci', password: 'password123' },
    });
    await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${key.json().id}`, headers: bearer(token) });
    const { entries } = await audit(await loginToken(t.app, admin.username), `?userId=${user.id}`);
    expect(entries.map((e) => [e.actor, e.action, e.details?.name]).reverse()).toEqual([
      [user.username, 'auth.login', undefined],
      [user.username, 'apikey.create', 'ci'],
      [user.username, 'apikey.revoke', 'ci'],
    ]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('the operator CLI in the audit log', () => {
  let scratch: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    scratch = await createPostgresDatabaseUrl();
  });
  afterAll(() => scratch.drop());

  const cli = (...args: string[]) => operatorCli({ DATABASE_URL: scratch.url }, ...args);

  it("records the CLI's user, credit and password changes with the actor 'cli'", async () => {
    expect(
      (await cli('user:create', '--username', 'cli_shop', '--password', 'password123', '--credits', '5'))
        .code,
    ).toBe(0);
    expect(
      (await cli('credits:add', '--username', 'cli_shop', '--amount', '20', '--note', 'Invoice 7')).code,
    ).toBe(0);
    expect((await cli('user:reset-password', '--username', 'cli_shop')).code).toBe(0);
    const database = await openPostgres(scratch.url, { max: 1 });
    try {
      const rows = await database.db.select().from(auditLog).orderBy(auditLog.id);
      expect(rows.map((r) => [r.actor, r.actorId, r.action, r.details])).toEqual([
        ['cli', null, 'user.create', expect.objectContaining({ username: 'cli_shop', credits: 5 })],
        ['cli', null, 'user.credits', { amount: 20, note: 'Invoice 7', balance: 25 }],
        ['cli', null, 'user.update', { password: 'changed' }],
      ]);
    } finally {
      await database.close();
    }
  });
});
