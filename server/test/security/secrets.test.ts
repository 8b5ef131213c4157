import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import { afterAll, describe, expect, it } from 'vitest';
import { users, waAuthState, webhooks } from '../../src/db/schema.ts';
import {
  decryptValue,
  encryptPlainSecrets,
  resolveSecretKey,
  totpSecretContext,
  webhookSecretContext,
} from '../../src/db/secrets.ts';
import { createDbAuthStore } from '../../src/transport/auth-store.ts';
import { buildAccount } from '../fakes/messaging.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';
import { serverArgs } from '../server-build.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'wa-secrets-'));

/** Every path under `dir` with its permission bits, e.g. `pglite/base/1 600`. */
function modes(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const stat = fs.statSync(p);
    out.push(`${path.relative(dir, p) || '.'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  walk(dir);
  return out;
}

describe('data at rest', () => {
  it('makes a key file once in DATA_DIR (0600), prefers SECRET_KEY, and refuses PostgreSQL with the real provider and no key', () => {
    const dataDir = path.join(tmp(), 'data');
    const base = { databaseUrl: undefined, dataDir, waProvider: 'baileys' as const, secretKey: undefined };
    const first = resolveSecretKey(base);
    expect(first).toHaveLength(32);
    expect(resolveSecretKey(base)).toEqual(first);
    expect((fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toString(8)).toBe('600');
    const given = crypto.randomBytes(32);
    expect(resolveSecretKey({ ...base, secretKey: given })).toEqual(given);
    expect(() => resolveSecretKey({ ...base, databaseUrl: 'postgres://db/wa' })).toThrow(
      /^SECRET_KEY is required with DATABASE_URL and WA_PROVIDER=baileys/,
    );
    expect(
      resolveSecretKey({ ...base, databaseUrl: 'postgres://db/wa', waProvider: 'simulator' }),
    ).toBeUndefined();
  });

  it('stops the real start on PostgreSQL with the real provider and no SECRET_KEY, with a clear message', () => {
    const run = spawnSync(process.execPath, serverArgs('main'), {
      env: {
        ...process.env,
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        WA_PROVIDER: 'baileys',
        SECRET_KEY: '',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toMatch(
      /^Configuration error: SECRET_KEY is required with DATABASE_URL and WA_PROVIDER=baileys: .*openssl rand -hex 32\)$/,
    );
  });

  describe.each(DB_KINDS)('the WhatsApp auth state (%s)', (kind) => {
    const t = testAppFor(kind);

    const rawValue = async (accountId: string, key: string) =>
      (await t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId))).find(
        (r) => r.key === key,
      )?.value;

    it('is stored encrypted (AES-256-GCM) and bound to its row', async () => {
      const user = await buildUser(t);
      const accountId = await buildAccount(t, user.id);
      const key = crypto.randomBytes(32);
      const store = createDbAuthStore(t.db, accountId, key);
      const creds = JSON.stringify({ noiseKey: { private: 'very-private-key-bytes' } });
      await store.write([
        { key: 'creds', value: creds },
        { key: 'pre-key-1', value: '{"k":1}' },
      ]);
      const raw = await rawValue(accountId, 'creds');
      expect(raw).toMatch(/^enc1:/);
      expect(raw).not.toContain('very-private');
      expect(await store.read('creds')).toBe(creds);
      expect(await store.readMany(['creds', 'pre-key-1', 'missing'])).toEqual(
        new Map([
          ['creds', creds],
          ['pre-key-1', '{"k":1}'],
        ]),
      );
      // Copied into another row, or read with another key, it does not open.
      await t.db.insert(waAuthState).values({ accountId, key: 'copied', value: raw! });
      await expect(store.read('copied')).rejects.toThrow();
      await expect(
        createDbAuthStore(t.db, accountId, crypto.randomBytes(32)).read('creds'),
      ).rejects.toThrow();
    });

    it('encrypts the plain rows of an older start, once', async () => {
      const user = await buildUser(t);
      const accountId = await buildAccount(t, user.id);
      await t.db.insert(waAuthState).values([
        { accountId, key: 'creds', value: '{"plain":"private"}' },
        { accountId, key: 'app-state', value: '{"plain":2}' },
      ]);
      const key = crypto.randomBytes(32);
      expect(await encryptPlainSecrets(t.db, key)).toBeGreaterThanOrEqual(2);
      expect(await rawValue(accountId, 'creds')).toMatch(/^enc1:/);
      expect(await createDbAuthStore(t.db, accountId, key).read('creds')).toBe('{"plain":"private"}');
      expect(await encryptPlainSecrets(t.db, key)).toBe(0);
    });
  });
});

describe.each(DB_KINDS)('TOTP and webhook secrets at rest (%s)', (kind) => {
  const hex = 'cd'.repeat(32);
  const key = Buffer.from(hex, 'hex');
  const t = testAppFor(kind, { SECRET_KEY: hex, ALLOW_PRIVATE_WEBHOOKS: 'true' });
  const storedTotp = async (userId: string) =>
    (await t.db.select({ s: users.totpSecret }).from(users).where(eq(users.id, userId)))[0]!.s;

  it('stores the TOTP secret encrypted, and codes still work', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const setup = (
      await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', headers: bearer(token) })
    ).json() as { secret: string };
    const raw = await storedTotp(user.id);
    expect(raw).toMatch(/^enc1:/);
    expect(raw).not.toContain(setup.secret);
    expect(decryptValue(key, totpSecretContext(user.id), raw!)).toBe(setup.secret);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.secret) });
    const on = await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/enable',
      headers: bearer(token),
      payload: { code: totp.generate() },
    });
    expect(on.statusCode).toBe(200);
  });

  it('encrypts the plain TOTP and webhook secrets of an older start, once', async () => {
    const user = await buildUser(t);
    await t.db.update(users).set({ totpSecret: 'JBSWY3DPEHPK3PXP' }).where(eq(users.id, user.id));
    await t.db.insert(webhooks).values({
      id: `wh-${kind}`,
      userId: user.id,
      url: 'http://127.0.0.1:9/x',
      events: ['optout'],
      secret: 'whsec_plain',
    });
    expect(await encryptPlainSecrets(t.db, key)).toBeGreaterThanOrEqual(2);
    const raw = await storedTotp(user.id);
    expect(raw).toMatch(/^enc1:/);
    expect(decryptValue(key, totpSecretContext(user.id), raw!)).toBe('JBSWY3DPEHPK3PXP');
    const [hook] = await t.db
      .select()
      .from(webhooks)
      .where(eq(webhooks.id, `wh-${kind}`));
    expect(hook!.secret).toMatch(/^enc1:/);
    expect(decryptValue(key, webhookSecretContext(`wh-${kind}`), hook!.secret)).toBe('whsec_plain');
    expect(await encryptPlainSecrets(t.db, key)).toBe(0);
  });
});

describe('the admin password on the first start', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  // One real first start also serves the data-at-rest checks: DATA_DIR 0700 and its files 0600, what an older
  // start left open tightened (a fresh embedded database costs seconds; one start makes it once).
  it('is printed only when it was generated; the data directory is the user’s alone', async () => {
    const dataDir = path.join(tmp(), 'data');
    fs.mkdirSync(dataDir, { mode: 0o777 });
    fs.chmodSync(dataDir, 0o777);
    fs.writeFileSync(path.join(dataDir, 'left-open.txt'), 'x');
    fs.chmodSync(path.join(dataDir, 'left-open.txt'), 0o666);
    child = spawn(process.execPath, serverArgs('main'), {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        WA_PROVIDER: 'simulator',
        ADMIN_PASSWORD: 'operator-chosen-secret',
        WEB_DIST_DIR: '/nonexistent-web-dist',
        LOG_LEVEL: 'silent',
        DATABASE_URL: '',
        SECRET_KEY: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
    });
    const deadline = Date.now() + 60_000;
    while (!out.includes('First start') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
    expect(out).toContain("First start: admin user 'admin' created with the password from ADMIN_PASSWORD");
    expect(out).not.toContain('operator-chosen-secret');
    const all = modes(dataDir);
    expect(all).toContain('. 700');
    expect(all).toContain('secret.key 600');
    expect(all).toContain('left-open.txt 600');
    expect(all.length).toBeGreaterThan(20);
    const loose = all.filter((line) => {
      const [p, mode] = line.split(' ');
      return fs.statSync(path.join(dataDir, p!)).isDirectory() ? mode !== '700' : mode !== '600';
    });
    expect(loose).toEqual([]);
  });
});
