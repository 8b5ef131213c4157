import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { PGLITE_SHARED_BUFFERS_DEFAULT } from './pglite-settings.ts';
import * as schema from './schema.ts';

/** One type for both drivers; a transaction is also a Db, so repositories accept either. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Signal other listeners (other processes on PostgreSQL). */
  notify(channel: string, payload: string): Promise<void>;
  /** Listen for notifications; resolves to an unlisten function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * server/drizzle, found from this module whether it runs as source (server/src/db) or bundled
 * (server/dist): the nearest folder above that holds `drizzle/meta`.
 */
export const migrationsFolder = (() => {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'drizzle');
    if (fs.existsSync(path.join(candidate, 'meta', '_journal.json'))) return candidate;
    if (path.dirname(dir) === dir)
      throw new Error(`no drizzle migrations folder above ${import.meta.dirname}`);
  }
})();

/** A unique constraint refused the write (PostgreSQL 23505); Drizzle wraps the driver's error in `cause`. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505') return true;
  }
  return false;
}

/** Runs a raw statement and returns its rows, the same way on both drivers. */
export async function queryRows<T extends Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * Creates a new PGlite data directory in a child process. PGlite's initdb runs in a WebAssembly
 * instance of its own whose memory (about 450 MB) the process keeps after it is done; done in a
 * child, the server that then opens the directory starts at about a third of that.
 */
function initPgliteDir(dataDir: string): void {
  const module = import.meta.resolve('@electric-sql/pglite');
  const script = `const { PGlite } = await import(${JSON.stringify(module)});
    const client = await PGlite.create(${JSON.stringify(dataDir)});
    await client.close();`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) {
    throw new Error(`Could not create the database in ${dataDir}: ${run.stderr.trim().split('\n').at(-1)}`);
  }
}

/**
 * The embedded database. `sharedBuffers` (PGLITE_SHARED_BUFFERS): PostgreSQL's buffer cache,
 * which PGlite's memory holds resident from the start (128 MB by PostgreSQL's default; 32 MB
 * here: a one-node console's working set fits, and the files stay in the OS page cache).
 */
export async function openPglite(
  dataDir: string | undefined,
  options: {
    sharedBuffers?: string;
    /** A dump (`dumpDataDir`) to start from instead of a new cluster; the tests' migrated template. */
    from?: Blob;
  } = {},
): Promise<Database> {
  // Loaded here, not at the top: a server on PostgreSQL never loads the embedded database's code.
  const [{ PGlite, types }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ]);
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) initPgliteDir(dataDir);
  }
  const startParams = [
    ...PGlite.defaultStartParams,
    '-c',
    `shared_buffers=${options.sharedBuffers ?? PGLITE_SHARED_BUFFERS_DEFAULT}`,
    // A new 16 MB WAL file is otherwise zero-filled by a synchronous write on the event loop:
    // a 1,000,000-contact import held every other request 100-280 ms at each one.
    '-c',
    'wal_init_zero=off',
    // A used WAL file is removed, not renamed for reuse with its old contents: once the WAL has
    // moved past an erasure, no file in the data directory holds the erased number.
    '-c',
    'wal_recycle=off',
  ];
  const client = await PGlite.create(dataDir, {
    startParams,
    ...byteaAsHex(types.BYTEA),
    ...(options.from ? { loadDataDir: options.from } : {}),
  });
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  await migratePglite(drizzlePglite(client), { migrationsFolder });
  return {
    db,
    kind: 'pglite',
    notify: async (channel, payload) => {
      await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    listen: async (channel, onPayload) => {
      const unlisten = await client.listen(channel, onPayload);
      return async () => unlisten();
    },
    close: () => client.close(),
  };
}

/**
 * bytea to and from PGlite as hex through Node's Buffer. PGlite's own (its types.ts) turns each
 * byte into a string (`Array.from(bytes).map(b => b.toString(16)…)`): storing a 16 MB file took
 * 12.5 s and 16 million strings on the event loop; this way 5.3 s (same machine, load 5).
 */
const byteaAsHex = (bytea: number) => ({
  serializers: {
    [bytea]: (x: unknown) => {
      const bytes = x as Uint8Array;
      return `\\x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
    },
  },
  parsers: { [bytea]: (text: string) => Buffer.from(text.slice(2), 'hex') },
});

export async function openPostgres(url: string, options: { max?: number } = {}): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const lockClient = await pool.connect();
  try {
    // Several processes may start at once: one migrates, the others wait.
    await lockClient.query('SELECT pg_advisory_lock(727274)');
    await migratePg(drizzlePg(lockClient), { migrationsFolder });
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock(727274)').catch(() => {});
    lockClient.release();
  }
  let listener: pg.Client | undefined;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  return {
    db,
    kind: 'postgres',
    notify: async (channel, payload) => {
      await db.execute(sql`SELECT pg_notify(${channel}, ${payload})`);
    },
    listen: async (channel, onPayload) => {
      if (!listener) {
        listener = new pg.Client({ connectionString: url });
        listener.on('error', () => {});
        await listener.connect();
        listener.on('notification', (msg) => {
          for (const h of handlers.get(msg.channel) ?? []) h(msg.payload ?? '');
        });
      }
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      }
      set.add(onPayload);
      return async () => {
        set.delete(onPayload);
      };
    },
    close: async () => {
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}

/**
 * DATA_DIR holds the database files and the key: only this user may read them. Existing
 * directories become 0700 and files 0600 (an older start made them world-readable).
 */
export function tightenDataDir(dir: string): void {
  if (!fs.existsSync(dir)) return;
  const walk = (p: string) => {
    const stat = fs.lstatSync(p);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) fs.chmodSync(p, 0o700);
      for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    } else if ((stat.mode & 0o777) !== 0o600) {
      fs.chmodSync(p, 0o600);
    }
  };
  walk(dir);
}

export async function openDatabase(config: {
  databaseUrl: string | undefined;
  dataDir: string;
  pgliteSharedBuffers?: string;
}): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const database = await openPglite(path.join(config.dataDir, 'pglite'), {
    sharedBuffers: config.pgliteSharedBuffers,
  });
  tightenDataDir(config.dataDir);
  return database;
}
