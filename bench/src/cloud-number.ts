/**
 * A Cloud number on Meta's HIGH throughput, connected through the product's own route to the
 * fake Graph API, with a bench user who owns it: what the Cloud rows at full speed share, with
 * what runs a part of a row in a process of its own beside the node (each on a core of its own).
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { createContext } from '../../server/src/context.ts';
import { queryRows } from '../../server/src/db/client.ts';
import { buildApp } from '../../server/src/http/app.ts';
import type { App } from '../../server/src/http/types.ts';
import type { FakeGraphApi, FakeGraphOptions } from '../../server/test/fakes/graph-api.ts';
import { cpuSeconds } from './dispatch.ts';
import type { GraphApiCollected, GraphApiRequest, GraphApiStarted } from './graph-api-process.ts';
import { benchAuth, benchUser } from './setup.ts';
import { topStatements } from './statement-tally.ts';

/** What the rows need of a fake Graph API, wherever it runs: where it is, the number's credentials, its end. */
export type GraphApiAt = Pick<
  FakeGraphApi,
  'baseUrl' | 'phoneNumberId' | 'wabaId' | 'accessToken' | 'appSecret' | 'close'
>;

export type HighNumber<F extends GraphApiAt> = {
  ctx: AppContext;
  app: App;
  /** The product's HTTP server, on a real port. */
  base: string;
  fake: F;
  user: Awaited<ReturnType<typeof benchUser>>;
  sessionId: string;
};

/**
 * `fn` with the number connected to a fake Graph API answering each send in `latencyMs`, started
 * by `start` (`startFakeGraphApi`, in this process, or one of a process of its own) and closed after.
 */
export async function withHighNumber<T, F extends GraphApiAt>(
  benchCtx: AppContext,
  credits: number,
  latencyMs: number,
  start: (options: FakeGraphOptions) => Promise<F>,
  fn: (n: HighNumber<F>) => Promise<T>,
): Promise<T> {
  const fake = await start({
    latencyMs,
    phone: { whatsapp_business_manager_messaging_limit: 'TIER_UNLIMITED', throughput: { level: 'HIGH' } },
    templates: [
      {
        name: 'order_update',
        language: 'en',
        category: 'UTILITY',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'Your order {{1}} has shipped.' }],
      },
    ],
  });
  const ctx = createContext(
    { ...benchCtx.config, cloudApiBaseUrl: fake.baseUrl },
    benchCtx.database,
    'bench',
  );
  const app = await buildApp(ctx);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const user = await benchUser(ctx, credits);
    const connected = await app.inject({
      method: 'POST',
      url: '/api/cloud-instances',
      headers: await benchAuth(app, user.username),
      payload: {
        sessionName: 'Bench (Cloud)',
        phoneNumberId: fake.phoneNumberId,
        wabaId: fake.wabaId,
        accessToken: fake.accessToken,
        appSecret: fake.appSecret,
        verifyToken: 'bench-verify',
      },
    });
    if (connected.statusCode !== 200) throw new Error(`connect: ${connected.body}`);
    return await fn({ ctx, app, base, fake, user, sessionId: connected.json().sessionId as string });
  } finally {
    await app.close();
    await fake.close();
  }
}

/**
 * The CPU seconds the bench database's PostgreSQL backends spend from now until the returned
 * function is called, or null when their /proc is not readable here. Counted backend by backend:
 * a connection the pool opens meanwhile counts from zero, one it closes meanwhile (idle for
 * pg.Pool's 10 s) is left out rather than subtracted. (PGlite runs in the node's process: its
 * CPU is the node's figure.)
 */
export async function databaseCpuFrom(ctx: AppContext): Promise<() => Promise<number | null>> {
  const backends = async () => {
    const rows = await queryRows<{ pid: number }>(
      ctx.db,
      sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`,
    ).catch(() => []);
    return new Map(rows.map(({ pid }) => [pid, cpuSeconds(pid)]));
  };
  const before = ctx.database.kind === 'postgres' ? await backends() : new Map<number, number | null>();
  return async () => {
    if (before.size === 0) return null;
    let sum = 0;
    for (const [pid, s] of await backends()) {
      if (s === null) return null;
      if (!before.has(pid)) sum += s;
      else if (before.get(pid) !== null) sum += s - before.get(pid)!;
    }
    return sum;
  };
}

/**
 * Pins process `pid` (every thread of it) to `cores` (taskset's list: "0", "1", "0-1"); false when
 * it cannot be (no taskset here). Threads it starts later inherit the mask. PostgreSQL runs as a
 * service of the machine and is left where it is.
 */
function pin(pid: number, cores: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Every core of the machine (taskset's list), to undo `pin`. */
const allCores = () => `0-${os.cpus().length - 1}`;

/**
 * Runs `fn` with this process (the node) on core 0, giving it core 1 for a process of its own
 * beside it, when the machine has two cores or more and BENCH_PIN is not 0; `fn` gets null (and
 * nothing is pinned) otherwise. The node is unpinned after.
 */
export async function pinnedBeside<T>(fn: (otherCore: string | null) => Promise<T>): Promise<T> {
  const pinned = process.env.BENCH_PIN !== '0' && os.cpus().length >= 2 && pin(process.pid, '0');
  try {
    return await fn(pinned ? '1' : null);
  } finally {
    if (pinned) pin(process.pid, allCores());
  }
}

/**
 * The bench module `module` (a URL beside this file) as a process of its own, through tsx, with
 * messages of the structured clone algorithm; on core `core` when given (see `pinnedBeside`).
 */
export function forkBenchProcess(module: URL, core: string | null): ChildProcess {
  const child = fork(fileURLToPath(module), { execArgv: ['--import', 'tsx'], serialization: 'advanced' });
  if (core !== null) pin(child.pid!, core);
  return child;
}

export type GraphApiProcess = GraphApiAt & {
  /** `sends` copies of `body` sent to the fake from its own process, untimed: its code compiled, as Meta's is. */
  warm(sends: number, body: unknown): Promise<void>;
  /** The timed part starts: the sends and the fake's CPU count from here. */
  mark(): Promise<void>;
  /** The arrival times of the sends since the mark (the fake's clock, ms) and the fake's CPU seconds. */
  collect(): Promise<GraphApiCollected>;
};

/** The fake Graph API started with `options` in a process of its own (`graph-api-process.ts`), on core `core` when given. */
export async function startGraphApiProcess(
  options: FakeGraphOptions,
  core: string | null,
): Promise<GraphApiProcess> {
  const child = forkBenchProcess(new URL('./graph-api-process.ts', import.meta.url), core);
  const waiting: { resolve: (m: unknown) => void; reject: (e: Error) => void }[] = [];
  let exited: string | null = null;
  child.on('message', (m) => waiting.shift()?.resolve(m));
  child.once('exit', (code, signal) => {
    exited = `the fake Graph API's process exited with ${code ?? signal}`;
    for (const w of waiting.splice(0)) w.reject(new Error(exited));
  });
  const ask = <R>(request: GraphApiRequest) =>
    new Promise<R>((resolve, reject) => {
      if (exited !== null) return reject(new Error(exited));
      waiting.push({ resolve: resolve as (m: unknown) => void, reject });
      child.send(request, (err) => {
        if (err) reject(err);
      });
    });
  let started: GraphApiStarted;
  try {
    started = await ask<GraphApiStarted>({ start: options });
  } catch (err) {
    child.kill();
    throw err;
  }
  return {
    ...started,
    warm: (sends, body) => ask<void>({ warm: { sends, body } }),
    mark: () => ask<void>({ mark: true }),
    collect: () => ask<GraphApiCollected>({ collect: true }),
    async close() {
      if (exited !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await ask({ close: true }).catch(() => {});
      await gone;
      clearTimeout(timer);
    },
  };
}

/** Where the node and the process beside it ran (`pinnedBeside`), as the rows print it. */
export const placement = (other: string, pinned: boolean, postgres: boolean) =>
  pinned
    ? ` (node on core 0, ${other} on core 1${postgres ? ', PostgreSQL unpinned' : ''})`
    : ' (not pinned)';

/** "N µs" of CPU a unit of work, and the rate one core holds at that cost. */
export const perUnit = (seconds: number, units: number) => {
  const us = (seconds * 1e6) / units;
  return {
    us: Math.round(us).toLocaleString('en-IN'),
    ceiling: Math.round(1e6 / us).toLocaleString('en-IN'),
  };
};

/**
 * The statements the node sent (a tally of statement-tally.ts): their count, per `unit`, and the
 * `most` frequent. PGlite's are not sent anywhere: they run in the node's process, in its CPU.
 */
export function statementsSent(
  ctx: AppContext,
  statements: Map<string, number>,
  units: number,
  unit: string,
  most: number,
): string {
  if (ctx.database.kind !== 'postgres') return "PGlite's statements run in the node's process";
  const sent = [...statements.values()].reduce((a, b) => a + b, 0);
  return (
    `${sent.toLocaleString('en-IN')} statements sent, ${(sent / units).toFixed(2)} a ${unit} ` +
    `(most: ${topStatements(statements, most).join('; ')})`
  );
}
