/** What the bench parts share: the product's config for a bench, its databases, users, linked accounts and number formats. */

import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { loadConfig } from '../../server/src/config.ts';
import { type AppContext, createContext } from '../../server/src/context.ts';
import {
  type Database,
  migrationsFolder,
  openPglite,
  openPostgres,
  queryRows,
} from '../../server/src/db/client.ts';
import { accounts, waAuthState } from '../../server/src/db/schema.ts';
import { createScratchDatabase } from '../../server/src/db/scratch.ts';
import type { App } from '../../server/src/http/types.ts';
import { createUser } from '../../server/src/users/service.ts';

/** The repository's root: where `npm run build` and the compiled server run from. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

let serverBuilt = false;
/** `npm run build -w server` once a bench run: the rows that start the compiled server share it. */
export function buildServerOnce(): void {
  if (serverBuilt) return;
  execFileSync('npm', ['run', 'build', '-w', 'server'], { cwd: REPO_ROOT, stdio: 'ignore' });
  serverBuilt = true;
}

export function config() {
  return loadConfig({
    LOG_LEVEL: 'silent',
    WA_PROVIDER: 'simulator',
    SIMULATOR_SEND_LATENCY_MS: '0',
    SIMULATOR_GROUPS: '3',
    SEND_DELAY_MIN_MS: '0',
    SEND_DELAY_MAX_MS: '0',
    WEB_DIST_DIR: '/nonexistent-web-dist',
    // The product's default period and margin; a smoke run's idle row must see one check in
    // seconds, and its senders' last writes leave the margin in seconds.
    HEALTH_CHECK_MS: String(size(60_000, 1_000)),
    HEALTH_MARGIN_MS: String(size(60_000, 1_000)),
  });
}

let migratedPglite: Promise<Blob> | undefined;
/**
 * One migrated PGlite database's dump, made once a run, as the server suite's tests start from
 * (server/test/test-templates.ts): a part opens it in about 0.9 s where a new cluster's initdb and
 * migrations take 2.4 s.
 */
function migratedPgliteDump(): Promise<Blob> {
  migratedPglite ??= (async () => {
    const client = await PGlite.create();
    await migrate(drizzle(client), { migrationsFolder });
    const dump = await client.dumpDataDir('none');
    await client.close();
    return dump;
  })();
  return migratedPglite;
}

export async function openBenchDatabase(kind: 'pglite' | 'postgres'): Promise<Database> {
  // A smoke run's parts start from the migrated dump; a full run's each from a new cluster, as
  // their figures always have.
  if (kind === 'pglite') {
    if (SMOKE) return openPglite(undefined, { from: await migratedPgliteDump() });
    // In a data directory on disk, as the product keeps it (db/client.ts openDatabase): in memory,
    // the database's own files would count in the process's RSS.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-pglite-'));
    const database = await openPglite(path.join(dir, 'pglite'));
    return {
      ...database,
      close: async () => {
        await database.close();
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  }
  const scratch = await createScratchDatabase(process.env.BENCH_DATABASE_URL!, 'bench');
  // The server's own pool size unless BENCH_POOL says otherwise (one connection per account helps).
  const database = await openPostgres(
    scratch.url,
    process.env.BENCH_POOL ? { max: Number(process.env.BENCH_POOL) } : {},
  );
  return {
    ...database,
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

export function context(database: Database): AppContext {
  return createContext(config(), database, 'bench');
}

export async function benchUser(ctx: AppContext, credits: number) {
  return createUser(ctx.db, {
    username: `bench_${crypto.randomBytes(4).toString('hex')}`,
    password: 'bench-password',
    name: 'Bench',
    role: 'USER',
    credits,
    isBulkMessagingEnabled: true,
    isMultisessionSupported: true,
    managedBy: null,
  });
}

/** The `Authorization` header of a bench user (made by benchUser), signed in through the app's own route. */
export async function benchAuth(app: App, username: string): Promise<{ authorization: string }> {
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username, password: 'bench-password' },
  });
  return { authorization: `Bearer ${login.json().token as string}` };
}

/** An account the way the accounts service stores a linked one: the simulator reconnects it from its credentials. */
export async function linkedAccount(ctx: AppContext, userId: string, i: number): Promise<string> {
  const phone = `9190${String(i).padStart(8, '0')}`;
  const accountId = `${phone}_${crypto.randomBytes(6).toString('hex')}`;
  await ctx.db.insert(accounts).values({
    id: crypto.randomUUID(),
    accountId,
    userId,
    phoneNumber: phone,
    name: `Bench ${i}`,
    hasCredentials: true,
  });
  await ctx.db.insert(waAuthState).values({
    accountId,
    key: 'creds',
    value: JSON.stringify({ me: { id: `${phone}:1@s.whatsapp.net` }, linkedAt: new Date().toISOString() }),
  });
  return accountId;
}

export const numbers = (n: number, start: number) => Array.from({ length: n }, (_, i) => String(start + i));
export const fmtS = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
export const fmtRate = (n: number) => `${Math.round(n).toLocaleString('en-IN')}/s`;
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * `BENCH_SMOKE=1`: every row at a small size, to show in CI that each still runs (its figures
 * mean nothing). `size(full, smoke)` picks a row's size.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';
export const size = (full: number, smoke: number) => (SMOKE ? smoke : full);

/** A markdown table's lines, each column as wide as its widest cell. */
export function markdownTable(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
}

/**
 * Transactions committed on the bench's PostgreSQL database so far, by every process (each
 * statement outside a transaction is one): PostgreSQL's statistics, read afresh.
 */
export async function commits(ctx: AppContext): Promise<number> {
  await ctx.db.execute(sql`SELECT pg_stat_clear_snapshot()`);
  const [row] = await queryRows<{ n: string }>(
    ctx.db,
    sql`SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Waits until the health check has evaluated `accounts` accounts once: it evaluates each new
 * account once (five statements, a row each), so an idle window starts after it.
 */
export async function allEvaluated(ctx: AppContext, accounts: number, timeoutMs: number): Promise<void> {
  for (const until = Date.now() + timeoutMs; ; ) {
    const [row] = await queryRows<{ n: number }>(ctx.db, sql`SELECT count(*)::int AS n FROM account_health`);
    if ((row?.n ?? 0) >= accounts) return;
    if (Date.now() > until)
      throw new Error(`${row?.n} of ${accounts} accounts evaluated after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}
