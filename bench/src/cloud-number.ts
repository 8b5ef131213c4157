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
import { type FakeGraphApi, startFakeGraphApi } from '../../server/test/fakes/graph-api.ts';
import { cpuSeconds } from './dispatch.ts';
import { benchAuth, benchUser } from './setup.ts';
import { topStatements } from './statement-tally.ts';

export type HighNumber = {
  ctx: AppContext;
  app: App;
  /** The product's HTTP server, on a real port. */
  base: string;
  fake: FakeGraphApi;
  user: Awaited<ReturnType<typeof benchUser>>;
  sessionId: string;
};

export async function withHighNumber<T>(
  benchCtx: AppContext,
  credits: number,
  latencyMs: number,
  fn: (n: HighNumber) => Promise<T>,
): Promise<T> {
  const fake = await startFakeGraphApi({
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
export function pin(pid: number, cores: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Every core of the machine (taskset's list), to undo `pin`. */
export const allCores = () => `0-${os.cpus().length - 1}`;

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
