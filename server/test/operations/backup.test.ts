import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/db/client.ts';
import { users } from '../../src/db/schema.ts';
import { startServer } from '../../src/server.ts';
import { buildUser, cli, seedPgliteDataDir, testConfig } from '../helpers.ts';

async function usernames(dataDir: string): Promise<string[]> {
  const database = await openPglite(path.join(dataDir, 'pglite'));
  try {
    return (await database.db.select({ username: users.username }).from(users)).map((u) => u.username).sort();
  } finally {
    await database.close();
  }
}

// Each test starts the CLI as its own process and opens the embedded database up to four times,
// each time running its migrations: about 20 s on a quiet machine, and past the suite's 60 s on
// a busy one (a CI run failed there). The limit is for a hang. The data directory starts as a
// copy of the run's migrated template (an existing installation; no initdb).
describe('backup and restore of the embedded database', { timeout: 240_000 }, () => {
  let dir: string;
  let dataDir: string;
  let env: Record<string, string>;
  const KEY = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2\n';
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-backup-'));
    dataDir = path.join(dir, 'data');
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    seedPgliteDataDir(dataDir);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('restores the database and the key file as they were at the backup, keeping what it replaced', async () => {
    const database = await openPglite(path.join(dataDir, 'pglite'));
    await buildUser({ db: database.db }, { username: 'before_backup' });
    await database.close();
    fs.writeFileSync(path.join(dataDir, 'credentials.key'), KEY, { mode: 0o600 });

    const file = path.join(dir, 'backup.tar');
    const backup = await cli(env, 'backup', '--out', file);
    expect(backup.out).toMatch(
      /^Backup of .* \(database and credentials\.key\) written to .*backup\.tar \(\d+ bytes\)\.$/m,
    );
    expect(backup.code).toBe(0);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    // Life goes on after the backup: another user, another key.
    const later = await openPglite(path.join(dataDir, 'pglite'));
    await buildUser({ db: later.db }, { username: 'after_backup' });
    await later.close();
    fs.writeFileSync(path.join(dataDir, 'credentials.key'), 'another key\n');
    expect(await usernames(dataDir)).toEqual(['after_backup', 'before_backup']);

    const restore = await cli(env, 'restore', '--in', file);
    expect(restore.code, restore.out).toBe(0);
    expect(restore.out).toMatch(
      /^Restored the backup of \d{4}-.* into .*\. What was there is in .*before-restore-/m,
    );
    expect(await usernames(dataDir)).toEqual(['before_backup']);
    expect(fs.readFileSync(path.join(dataDir, 'credentials.key'), 'utf8')).toBe(KEY);
    expect(fs.statSync(path.join(dataDir, 'credentials.key')).mode & 0o777).toBe(0o600);
    const aside = fs.readdirSync(dataDir).find((n) => n.startsWith('before-restore-'))!;
    expect(fs.readFileSync(path.join(dataDir, aside, 'credentials.key'), 'utf8')).toBe('another key\n');
    expect(fs.existsSync(path.join(dataDir, aside, 'pglite', 'PG_VERSION'))).toBe(true);
  });

  it('refuses to back up or restore while a server runs on the data directory, and changes nothing', async () => {
    const file = path.join(dir, 'backup.tar');
    const server = await startServer(
      testConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WA_PROVIDER: 'simulator' }),
    );
    try {
      for (const args of [
        ['restore', '--in', file],
        ['backup', '--out', path.join(dir, 'other.tar')],
      ]) {
        const res = await cli(env, ...args);
        expect(res.code).toBe(1);
        expect(res.out).toContain(
          `Error: a server is running on ${dataDir} (pid ${process.pid}): stop it first`,
        );
      }
      expect(fs.existsSync(path.join(dir, 'other.tar'))).toBe(false);
      expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('before-restore-'))).toHaveLength(1);
    } finally {
      await server.stop();
    }
    expect(fs.existsSync(path.join(dataDir, 'server.pid'))).toBe(false);
    expect(await usernames(dataDir)).toContain('before_backup');
  });

  it('never follows a link planted at the .partial name: the target stays as it was, the backup is 0600', async () => {
    const file = path.join(dir, 'planted.tar');
    const target = path.join(dir, 'attacker-readable');
    fs.writeFileSync(target, 'untouched');
    fs.chmodSync(target, 0o666);
    fs.symlinkSync(target, `${file}.partial`);
    const res = await cli(env, 'backup', '--out', file);
    expect(res.code, res.out).toBe(0);
    expect(fs.readFileSync(target, 'utf8')).toBe('untouched');
    expect(fs.lstatSync(file).isFile()).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
  });

  it('says what is wrong with a file that is not a backup, and leaves the database alone', async () => {
    const bogus = path.join(dir, 'bogus.tar');
    fs.writeFileSync(bogus, 'not a tar file at all'.repeat(100));
    const res = await cli(env, 'restore', '--in', bogus);
    expect(res.code).toBe(1);
    expect(res.out).toContain(`Error: ${bogus} is not a backup of this console`);
    const missing = await cli(env, 'restore', '--in', path.join(dir, 'nope.tar'));
    expect(missing.out).toContain(`Error: no file ${path.join(dir, 'nope.tar')}`);
    expect(await usernames(dataDir)).toContain('before_backup');
  });

  it('points to pg_dump when the database is PostgreSQL', async () => {
    const res = await cli(
      { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' },
      'backup',
      '--out',
      path.join(dir, 'pg.tar'),
    );
    expect(res.code).toBe(1);
    expect(res.out).toContain(
      'Error: DATABASE_URL is set: back up PostgreSQL with its own tools (pg_dump / pg_restore, see docs/operations.md)',
    );
  });
});
