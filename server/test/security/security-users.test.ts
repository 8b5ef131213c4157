import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/credits/credits.ts';
import { accounts, users } from '../../src/db/schema.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger, scrubLogLine } from '../../src/logger.ts';
import { setPassword } from '../../src/users/service.ts';
import { buildAccount } from '../fakes/messaging.ts';
import { bearer, buildAdmin, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

describe.each(DB_KINDS)('users and credits faults (%s)', (kind) => {
  const t = testAppFor(kind);

  const details = (token: string) =>
    t.app
      .inject({ method: 'GET', url: '/api/userDetails', headers: bearer(token) })
      .then((r) => r.statusCode);
  /** The app as it runs, with its JSON log lines (info and up) kept in `lines`. */
  async function appLoggingLines() {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp({
      ...t.ctx,
      log: createLogger({ logLevel: 'info', logFormat: 'json' }, sink),
    });
    await app.ready();
    return { app, lines };
  }
  const patch = (adminToken: string, id: string, payload: object) =>
    t.app.inject({ method: 'PATCH', url: `/api/admin/users/${id}`, headers: bearer(adminToken), payload });

  describe('a new password or disabling revokes every token', () => {
    it('ends the sessions opened before an admin reset, and after a disable they stay ended when re-enabled', async () => {
      const admin = await buildAdmin(t);
      const adminToken = await loginToken(t.app, admin.username);
      const user = await buildUser(t, { managedBy: admin.id });
      const before = [await loginToken(t.app, user.username), await loginToken(t.app, user.username)];
      expect((await patch(adminToken, user.id, { password: 'a-new-password' })).statusCode).toBe(200);
      expect(await Promise.all(before.map(details))).toEqual([401, 401]);
      const fresh = await loginToken(t.app, user.username, 'a-new-password');
      expect(await details(fresh)).toBe(200);

      expect((await patch(adminToken, user.id, { disabled: true })).statusCode).toBe(200);
      expect((await patch(adminToken, user.id, { disabled: false })).statusCode).toBe(200);
      expect(await details(fresh)).toBe(401);
      expect(await details(await loginToken(t.app, user.username, 'a-new-password'))).toBe(200);
    });

    it('disabling stops the user’s sessions (the driving node lets the connection go)', async () => {
      const admin = await buildAdmin(t);
      const adminToken = await loginToken(t.app, admin.username);
      const user = await buildUser(t, { managedBy: admin.id });
      const sessions = [await buildAccount(t, user.id), await buildAccount(t, user.id)];
      expect((await patch(adminToken, user.id, { disabled: true })).statusCode).toBe(200);
      const rows = await t.db.select().from(accounts).where(eq(accounts.userId, user.id));
      expect(rows.map((r) => [r.accountId, r.desiredState, r.statusReason]).sort()).toEqual(
        sessions.map((id) => [id, 'stopped', 'The account is disabled']).sort(),
      );
    });

    it('the CLI reset (setPassword) revokes too', async () => {
      const user = await buildUser(t);
      const token = await loginToken(t.app, user.username);
      await setPassword(t.db, user.id, 'reset-by-cli');
      expect(await details(token)).toBe(401);
    });
  });

  describe('concurrent creation of one username', () => {
    it('answers 409 to all but one, never 500, and logs no password hash', async () => {
      const { app: logged, lines } = await appLoggingLines();
      try {
        const admin = await buildAdmin(t);
        const adminToken = await loginToken(t.app, admin.username);
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            logged.inject({
              method: 'POST',
              url: '/api/admin/users',
              headers: bearer(adminToken),
              payload: { username: 'same-name', password: `password-${i}`, name: `Racer ${i}` },
            }),
          ),
        );
        const codes = answers.map((a) => a.statusCode).sort();
        expect(codes).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
        for (const a of answers.filter((x) => x.statusCode === 409))
          expect(a.json().message).toMatch(/^(Username is already taken|This already exists)$/);
        expect(lines.join('')).not.toContain('$argon2');
      } finally {
        await logged.close();
      }
    });

    it('scrubs hashes, bearer tokens, secret fields and query parameters from every log line', () => {
      const line = JSON.stringify({
        msg: 'Failed query: insert into "users" values ($1, $2)\nparams: bob,$argon2id$v=19$m=19456,t=2,p=1$abc$def',
        headers: { authorization: 'Bearer abcDEF123_-' },
        password: 'hunter2-hunter2',
        otp: '123456',
        note: 'kept',
      });
      const out = scrubLogLine(line);
      expect(out).not.toMatch(/argon2|abcDEF123|hunter2|123456|bob/);
      expect(JSON.parse(out).note).toBe('kept');
      expect(JSON.parse(out).msg).toBe(
        'Failed query: insert into "users" values ($1, $2)\nparams: [redacted]',
      );
    });
  });

  describe("the access log and Meta's verify token", () => {
    it("writes the webhook's URL with hub.verify_token redacted, in either spelling", async () => {
      const { app: logged, lines } = await appLoggingLines();
      try {
        for (const key of ['hub.verify_token', 'hub%2Everify_token'])
          await logged.inject({
            method: 'GET',
            url: `/api/cloud/webhook/nobody_1?hub.mode=subscribe&${key}=Sup3rSecretVerify&hub.challenge=42`,
          });
        const written = lines.join('');
        expect(written).toContain('/api/cloud/webhook/nobody_1');
        expect(written).toContain('verify_token=[redacted]');
        expect(written).not.toContain('Sup3rSecretVerify');
      } finally {
        await logged.close();
      }
    });
  });

  describe('credits beyond 32 bits', () => {
    it('takes a third grant of 1e9, and refuses a balance above the maximum with 400', async () => {
      const admin = await buildAdmin(t);
      const adminToken = await loginToken(t.app, admin.username);
      const user = await buildUser(t, { managedBy: admin.id });
      const grant = (amount: number) =>
        t.app.inject({
          method: 'POST',
          url: `/api/admin/users/${user.id}/credits`,
          headers: bearer(adminToken),
          payload: { amount },
        });
      for (let i = 0; i < 3; i++) expect((await grant(1_000_000_000)).statusCode).toBe(200);
      const [row] = await t.db.select({ credits: users.credits }).from(users).where(eq(users.id, user.id));
      expect(row!.credits).toBe(3_000_000_000);
      expect(await ledgerSum(t.db, user.id)).toBe(3_000_000_000);

      await t.db
        .update(users)
        .set({ credits: Number.MAX_SAFE_INTEGER - 10 })
        .where(eq(users.id, user.id));
      const over = await grant(11);
      expect(over.statusCode).toBe(400);
      expect(over.json()).toEqual({ success: false, message: 'Balance would exceed the maximum' });
      expect((await grant(10)).json().credits).toBe(Number.MAX_SAFE_INTEGER);
    });
  });
});
