import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type Config, loadConfig } from '../src/config.ts';
import { type AppContext, createContext } from '../src/context.ts';
import { type Database, openPglite, openPostgres } from '../src/db/client.ts';
import { createScratchDatabase } from '../src/db/scratch.ts';
import { type Engine, type EngineOptions, startEngine } from '../src/engine.ts';
import { buildApp } from '../src/http/app.ts';
import type { App } from '../src/http/types.ts';
import { createUser, type NewUser } from '../src/users/service.ts';
import { connectedAccount } from './fakes/accounts.ts';
import { expectLedgerMatches } from './fakes/messaging.ts';
import { serverArgs } from './server-build.ts';

export type DbKind = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set. */
export const DB_KINDS: DbKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

let pgliteTemplate: Blob | undefined;
/** The migrated dump test-templates.ts made for this run (absent outside the server suite). */
function migratedTemplate(): Blob | undefined {
  const file = process.env.PGLITE_TEMPLATE_FILE;
  if (file && !pgliteTemplate) pgliteTemplate = new Blob([fs.readFileSync(file)]);
  return pgliteTemplate;
}

/** A fresh, migrated database: in-memory PGlite, or a new PostgreSQL database dropped on close. */
export async function openTestDatabase(kind: DbKind): Promise<Database> {
  if (kind === 'pglite') return openPglite(undefined, { from: migratedTemplate() });
  const scratch = await createScratchDatabase(
    process.env.TEST_DATABASE_URL!,
    't',
    process.env.PG_TEMPLATE_DATABASE,
  );
  const database = await openPostgres(scratch.url);
  return {
    ...database,
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

/**
 * A DATA_DIR whose embedded database exists already (migrated, no rows): a copy of the run's
 * template directory (test-templates.ts) at DATA_DIR/pglite, for tests that start server
 * processes on PGlite. A new data directory costs the process its initdb, about 8 s of CPU;
 * pglite-settings and secrets still start on new ones.
 */
export function seedPgliteDataDir(dataDir: string): void {
  const template = process.env.PGLITE_TEMPLATE_DIR;
  if (!template) throw new Error('PGLITE_TEMPLATE_DIR is not set: run the tests with their vitest config');
  fs.cpSync(template, path.join(dataDir, 'pglite'), { recursive: true });
}

/**
 * A fresh, empty database URL on the test PostgreSQL server (for tests that start real
 * processes: each migrates it on its first start, as a new deployment does).
 */
export const createPostgresDatabaseUrl = () => createScratchDatabase(process.env.TEST_DATABASE_URL!, 't');

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    ADMIN_PASSWORD: 'admin-password',
    SEND_DELAY_MIN_MS: '0',
    SEND_DELAY_MAX_MS: '0',
    WA_PROVIDER: 'simulator',
    SIMULATOR_SEND_LATENCY_MS: '0',
    WEB_DIST_DIR: '/nonexistent-web-dist',
    ...env,
  });
}

export type TestApp = {
  app: App;
  ctx: AppContext;
  db: Database['db'];
  close(): Promise<void>;
};

/** The HTTP app on a fresh database, for `app.inject` tests. No engine runs unless a test starts one. */
export async function createTestApp(kind: DbKind, env: Record<string, string> = {}): Promise<TestApp> {
  const config = testConfig(env);
  const database = await openTestDatabase(kind);
  const ctx = createContext(config, database, 'test');
  const app = await buildApp(ctx);
  await app.ready();
  return {
    app,
    ctx,
    db: database.db,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}

/** An object that reads and sets its properties on what `get()` returns at the time (made later, in beforeAll). */
export function late<T extends object>(get: () => T): T {
  return new Proxy({} as T, {
    get: (_, key) => {
      const target = get();
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (_, key, value) => Reflect.set(get(), key, value),
  });
}

/**
 * The describe block's app, no engine: made before its tests, closed after them; after each test
 * the ledgers of `users` must match their balances. What this returns reads the app of the time.
 */
export function testAppFor(kind: DbKind, env: Record<string, string> = {}, users?: Set<string>): TestApp {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await createTestApp(kind, env);
  });
  afterAll(async () => {
    await t?.close();
  });
  if (users) afterEach(() => expectLedgerMatches(t!.db, users));
  return late(() => t!);
}

/**
 * The describe block's app with the engine running (account runner, dispatcher, simulator): made
 * before its tests, stopped after them; after each test the ledgers of `users` must match their
 * balances (ARCHITECTURE principle 2). `t` and `engine` are for use inside the tests and hooks.
 * `options`: the engine's (how often its webhook deliverer polls and retries).
 */
export function appWithEngine(
  kind: DbKind,
  env: Record<string, string> = {},
  users?: Set<string>,
  options: EngineOptions = {},
) {
  // Hooks run in order and the after hooks the other way round: the engine stops before the app closes.
  const t = testAppFor(kind, env, users);
  let engine: Engine | undefined;
  beforeAll(async () => {
    engine = await startEngine(t.ctx, options);
  });
  afterAll(async () => {
    await engine?.stop();
  });
  return { t, engine: late(() => engine!) };
}

/**
 * For a describe block: two nodes on one new PostgreSQL database, `api` serving the HTTP app and
 * `worker` without one (the test starts what it runs there). Closed after the block; what this
 * returns reads the nodes of the time.
 */
export function twoNodesFor(env: Record<string, string> = {}) {
  let nodes: { api: AppContext; worker: AppContext; app: App; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    const created = await createPostgresDatabaseUrl();
    const apiDb = await openPostgres(created.url);
    const workerDb = await openPostgres(created.url);
    const api = createContext(testConfig(env), apiDb, 'api');
    const app = await buildApp(api);
    await app.ready();
    nodes = {
      api,
      worker: createContext(testConfig(env), workerDb, 'worker'),
      app,
      close: async () => {
        await app.close();
        await apiDb.close();
        await workerDb.close();
        await created.drop();
      },
    };
  });
  afterAll(async () => {
    await nodes?.close();
  });
  return { api: late(() => nodes!.api), worker: late(() => nodes!.worker), app: late(() => nodes!.app) };
}

/**
 * The routes anyone may call without a token ('METHOD /url' as Fastify registers them); Meta calls
 * the Cloud webhook, whose verify token and signature are its check (cloud-accounts-webhooks.test.ts:
 * a wrong one is 403 / 401 and changes nothing).
 */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set([
  'GET /api/meta',
  'POST /api/auth/login',
  'POST /api/auth/register',
  'POST /api/auth/forgot-password',
  'GET /api/cloud/webhook/:sessionId',
  'POST /api/cloud/webhook/:sessionId',
]);

/** An account's sending policy that holds nothing back: no daily limit, no warm-up, no quiet hours, no pause. */
export const OPEN_POLICY = {
  dailyLimit: null,
  warmUp: false,
  quietHours: null,
  timezone: 'Asia/Kolkata',
  delayMinMs: 0,
  delayMaxMs: 0,
  typing: true,
};

let counter = 0;
/** Builds a user directly in the database (factory). Password is 'password123'. */
export async function buildUser(
  t: { db: Database['db'] },
  overrides: Partial<NewUser> = {},
): Promise<{ id: string; username: string; password: string }> {
  counter += 1;
  const username = overrides.username ?? `user${counter}_${crypto.randomBytes(2).toString('hex')}`;
  const password = overrides.password ?? 'password123';
  const user = await createUser(t.db, {
    username,
    password,
    name: overrides.name ?? `User ${counter}`,
    role: overrides.role ?? 'USER',
    credits: overrides.credits ?? 0,
    isBulkMessagingEnabled: overrides.isBulkMessagingEnabled ?? true,
    isMultisessionSupported: overrides.isMultisessionSupported ?? true,
    managedBy: overrides.managedBy ?? null,
  });
  return { id: user.id, username, password };
}

export async function buildAdmin(t: { db: Database['db'] }, overrides: Partial<NewUser> = {}) {
  return buildUser(t, { role: 'ADMIN', ...overrides });
}

/** Signs in through the API and returns the bearer token. */
export async function loginToken(app: App, username: string, password = 'password123'): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });
  if (res.statusCode !== 200) throw new Error(`login failed for ${username}: ${res.statusCode} ${res.body}`);
  return res.json().token as string;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

type Inject = TestApp['app']['inject'];
/** A sign-in through the API from an address (192.0.2.10 unless given) with these headers; the answer as it came. */
export const login = (
  inject: Inject,
  body: { username: string; password: string; otp?: string },
  from: { ip?: string; headers?: Record<string, string> } = {},
) =>
  inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: body,
    remoteAddress: from.ip ?? '192.0.2.10',
    headers: from.headers ?? {},
  });

/**
 * For a describe block: `app(env)` gives an app with these settings, made on first call. Those
 * with the defaults share one (a fresh database costs seconds), so each of their tests makes its
 * own users and none fails a sign-in there. All are closed after the block.
 */
export function appsFor(kind: DbKind) {
  const apps: Array<Promise<TestApp>> = [];
  let plain: Promise<TestApp> | undefined;
  afterAll(async () => {
    for (const t of apps) await (await t).close();
  });
  return (env: Record<string, string> = {}) => {
    if (Object.keys(env).length === 0 && plain) return plain;
    const t = createTestApp(kind, env);
    apps.push(t);
    if (Object.keys(env).length === 0) plain = t;
    return t;
  };
}

type AccountOptions = Partial<NewUser> & { track?: Set<string> };

/** A user who can sign in, with their token; `track` collects the id (for the ledger check after each test). */
export async function account(t: TestApp, opts: AccountOptions = {}) {
  const { track, ...overrides } = opts;
  const user = await buildUser(t, overrides);
  track?.add(user.id);
  return { user, token: await loginToken(t.app, user.username) };
}

let lastPhone = 919_700_000_000;

/**
 * An account with one account linked on the simulated network (CONNECTED once the test's engine
 * or runner drives it); `phone`: its number (a fresh one by default).
 */
export async function linkedAccount(t: TestApp, opts: AccountOptions & { phone?: string } = {}) {
  const { phone, ...rest } = opts;
  const a = await account(t, rest);
  lastPhone += 1;
  return { ...a, accountId: await connectedAccount(t, a.token, phone ?? String(lastPhone)) };
}

/**
 * `npm run cli -- ...` as an operator runs it: a process of its own (the run's build of cli.ts,
 * server-build.ts) with only PATH, HOME and `env` (DATA_DIR or DATABASE_URL) set. Resolves with
 * its exit code and all it printed.
 */
export function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...serverArgs('cli'), ...args], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => resolve({ code: code ?? -1, out }));
  });
}
