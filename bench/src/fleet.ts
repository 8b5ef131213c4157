/**
 * A reseller's fleet on one PostgreSQL (BENCH_ONLY=fleet): FLEET_ACCOUNTS linked simulated
 * accounts driven by FLEET_WORKERS compiled server processes (`ROLE=worker`) and answered by one
 * `ROLE=api` process, as an operator runs them. Measures the statements the database commits per
 * second (every process's, from PostgreSQL's statistics) idle and while FLEET_SENDERS accounts
 * send FLEET_MESSAGES each through the API, the leases that moved meanwhile, each process's RSS,
 * and how long the accounts of a killed worker wait for another worker to drive them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { createContext } from '../../server/src/context.ts';
import { openPostgres, queryRows } from '../../server/src/db/client.ts';
import { accounts, users, waAuthState } from '../../server/src/db/schema.ts';
import { createScratchDatabase } from '../../server/src/db/scratch.ts';
import { allEvaluated, buildServerOnce, commits, config, fmtS, REPO_ROOT, size } from './setup.ts';

export const FLEET_ACCOUNTS = size(5000, 60);
export const FLEET_WORKERS = 3;
export const FLEET_SENDERS = size(500, 10);
export const FLEET_MESSAGES = size(20, 3);
/** Accounts per user: a multi-session user holds at most 10. */
const PER_USER = 10;
/** The ports of the API process and the workers (each server listens, the workers for /readyz). */
const BASE_PORT = Number(process.env.BENCH_FLEET_PORT ?? 3370);
/** A lease's length in the processes (the product's default): a killed worker's accounts wait for it. */
const LEASE_MS = size(30_000, 5_000);
const STATS_SETTLE_MS = size(12_000, 1_500);
const WINDOW_MS = size(60_000, 3_000);

type Proc = { name: string; child: ChildProcess; port: number };

/** The compiled server (`node server/dist/main.js`) on `url` in role `role`. */
function startProcess(name: string, role: 'api' | 'worker', url: string, port: number): Proc {
  const { healthCheckMs, healthMarginMs } = config();
  const child = spawn(process.execPath, ['server/dist/main.js'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      ROLE: role,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: url,
      WA_PROVIDER: 'simulator',
      SIMULATOR_SEND_LATENCY_MS: '0',
      SEND_DELAY_MIN_MS: '0',
      SEND_DELAY_MAX_MS: '0',
      SESSION_LEASE_MS: String(LEASE_MS),
      // The bench's health check (setup.ts: the product's minute, a second in a smoke run): the
      // idle window waits for its first evaluation of every account.
      HEALTH_CHECK_MS: String(healthCheckMs),
      HEALTH_MARGIN_MS: String(healthMarginMs),
      LOG_LEVEL: 'error',
      WEB_DIST_DIR: '/nonexistent-web-dist',
      ADMIN_PASSWORD: 'bench-admin-password',
    },
  });
  child.stderr?.on('data', (d) => process.stderr.write(`[${name}] ${d}`));
  return { name, child, port };
}

async function ready(p: Proc): Promise<void> {
  for (const until = Date.now() + 120_000; Date.now() < until; ) {
    if (p.child.exitCode !== null) throw new Error(`${p.name} exited with ${p.child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${p.port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${p.name} was not ready within 120 s`);
}

const rssMb = (p: Proc) => {
  const status = fs.readFileSync(`/proc/${p.child.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};

/** Statements per second over `run` (its own statements aside), once the backends reported them. */
async function statementsPerSecond(ctx: AppContext, run: () => Promise<number>): Promise<number> {
  await sleep(STATS_SETTLE_MS);
  const before = await commits(ctx);
  const started = Date.now();
  const own = await run();
  const elapsed = Date.now() - started;
  await sleep(STATS_SETTLE_MS);
  // The probes' own: the first one's read, the second one's clearing (each statement is a commit).
  return ((await commits(ctx)) - before - 2 - own) / (elapsed / 1000);
}

/** Each account's owner node. */
async function owners(ctx: AppContext): Promise<Map<string, string | null>> {
  const rows = await queryRows<{ session_id: string; owner_node: string | null }>(
    ctx.db,
    sql`SELECT session_id, owner_node FROM wa_sessions`,
  );
  return new Map(rows.map((r) => [r.session_id, r.owner_node]));
}

const moved = (a: Map<string, string | null>, b: Map<string, string | null>) =>
  [...a].filter(([id, owner]) => b.get(id) !== owner).length;

/** Waits until every account is CONNECTED with an owner outside `not`. */
async function allConnected(ctx: AppContext, timeoutMs: number, not: string[] = []): Promise<void> {
  for (const until = Date.now() + timeoutMs; ; ) {
    const [row] = await queryRows<{ n: number }>(
      ctx.db,
      sql`SELECT count(*)::int AS n FROM wa_sessions
          WHERE status = 'CONNECTED' AND owner_node IS NOT NULL
            AND NOT (owner_node = ANY(${sql.param(not)}::text[]))`,
    );
    if ((row?.n ?? 0) >= FLEET_ACCOUNTS) return;
    if (Date.now() > until) throw new Error(`${row?.n} of ${FLEET_ACCOUNTS} accounts connected`);
    await sleep(250);
  }
}

/** FLEET_ACCOUNTS linked accounts, PER_USER to a user (all users with one password). */
async function seed(ctx: AppContext): Promise<void> {
  const { createUser } = await import('../../server/src/users/service.ts');
  const first = await createUser(ctx.db, {
    username: 'fleet_0',
    password: 'bench-password',
    name: 'Fleet 0',
    role: 'USER',
    credits: 1_000_000,
    isBulkMessagingEnabled: true,
    isMultisessionSupported: true,
    managedBy: null,
  });
  const [hash] = await queryRows<{ h: string }>(
    ctx.db,
    sql`SELECT password_hash AS h FROM users WHERE id = ${first.id}`,
  );
  const all = [{ id: first.id, username: first.username }];
  for (let u = 1; u < Math.ceil(FLEET_ACCOUNTS / PER_USER); u++)
    all.push({ id: crypto.randomUUID(), username: `fleet_${u}` });
  await ctx.db.insert(users).values(
    all.slice(1).map((u) => ({
      id: u.id,
      username: u.username,
      name: u.username,
      passwordHash: hash!.h,
      role: 'USER' as const,
      credits: 1_000_000,
      isBulkMessagingEnabled: true,
      isMultisessionSupported: true,
    })),
  );
  for (let i = 0; i < FLEET_ACCOUNTS; i += 1000) {
    const chunk = Array.from({ length: Math.min(1000, FLEET_ACCOUNTS - i) }, (_, j) => {
      const n = i + j;
      const phone = `9197${String(n).padStart(8, '0')}`;
      return { n, phone, sessionId: `${phone}_${crypto.randomBytes(6).toString('hex')}` };
    });
    await ctx.db.insert(accounts).values(
      chunk.map((a) => ({
        id: crypto.randomUUID(),
        accountId: a.sessionId,
        userId: all[Math.floor(a.n / PER_USER)]!.id,
        phoneNumber: a.phone,
        name: `Fleet ${a.n}`,
        hasCredentials: true,
      })),
    );
    await ctx.db.insert(waAuthState).values(
      chunk.map((a) => ({
        accountId: a.sessionId,
        key: 'creds',
        value: JSON.stringify({
          me: { id: `${a.phone}:1@s.whatsapp.net` },
          linkedAt: new Date().toISOString(),
        }),
      })),
    );
  }
}

/**
 * FLEET_SENDERS accounts (the first ones of the first users) each send FLEET_MESSAGES one-to-one
 * texts through the API process, 10 requests at a time; resolves when every recipient has its outcome.
 */
async function sendThroughApi(ctx: AppContext, api: Proc) {
  const base = `http://127.0.0.1:${api.port}`;
  const senders = await queryRows<{ session_id: string; username: string }>(
    ctx.db,
    sql`SELECT s.session_id, u.username FROM wa_sessions s JOIN users u ON u.id = s.user_id
        ORDER BY s.phone_number LIMIT ${FLEET_SENDERS}`,
  );
  const tokens = new Map<string, string>();
  for (const username of new Set(senders.map((s) => s.username))) {
    const res = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: 'bench-password' }),
    });
    if (!res.ok) throw new Error(`login ${username}: HTTP ${res.status}`);
    tokens.set(username, ((await res.json()) as { token: string }).token);
  }
  const started = Date.now();
  let next = 0;
  const post = async () => {
    while (next < senders.length) {
      const i = next++;
      const s = senders[i]!;
      // None ends in 0000, which the simulator answers 'Not on WhatsApp'.
      const chatIds = Array.from(
        { length: FLEET_MESSAGES },
        (_, k) => `9196${String(i * 100 + k + 1).padStart(8, '0')}`,
      );
      const res = await fetch(`${base}/api/session/${s.session_id}/sendIndividualMessage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.get(s.username)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ chatIds, content: 'Fleet benchmark' }),
      });
      if (res.status !== 200) throw new Error(`send: HTTP ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 10 }, post));
  const total = FLEET_SENDERS * FLEET_MESSAGES;
  let probes = 0;
  for (const until = Date.now() + 600_000; ; ) {
    probes++;
    const [row] = await queryRows<{ done: number; failed: number }>(
      ctx.db,
      sql`SELECT coalesce(sum(sent_count + failed_count), 0)::int AS done, coalesce(sum(failed_count), 0)::int AS failed
          FROM message_jobs`,
    );
    if ((row?.done ?? 0) >= total) {
      if (row?.failed) throw new Error(`${row.failed} of ${total} failed`);
      break;
    }
    if (Date.now() > until) throw new Error(`${row?.done} of ${total} outcomes after 10 minutes`);
    await sleep(500);
  }
  return { ms: Date.now() - started, probes };
}

export type FleetFigures = { idle: string; traffic: string; rss: string; takeover: string };

export async function fleet(ctx: AppContext, url: string): Promise<FleetFigures> {
  await seed(ctx);
  const api = startProcess('api', 'api', url, BASE_PORT);
  const workers = Array.from({ length: FLEET_WORKERS }, (_, i) =>
    startProcess(`worker ${i + 1}`, 'worker', url, BASE_PORT + 1 + i),
  );
  const all = [api, ...workers];
  try {
    await Promise.all(all.map(ready));
    const connecting = Date.now();
    // Each worker claims 50 free accounts a pass and passes on its heartbeat (a third of a lease)
    // or when told the accounts changed; the bench tells them, as adding accounts through the API does.
    const poke = setInterval(() => {
      ctx.database.notify('wa_session_changed', 'fleet').catch(() => {});
    }, 500);
    try {
      await allConnected(ctx, 600_000);
    } finally {
      clearInterval(poke);
    }
    const connectMs = Date.now() - connecting;
    const split = await queryRows<{ n: number }>(
      ctx.db,
      sql`SELECT count(*)::int AS n FROM wa_sessions GROUP BY owner_node ORDER BY 1 DESC`,
    );

    // The first health check evaluates every new account once (five statements each, on the
    // health check's minute); idle starts after it, as in the idle row.
    const evaluating = Date.now();
    await allEvaluated(ctx, FLEET_ACCOUNTS, 300_000);
    const evaluateMs = Date.now() - evaluating;

    const atRest = await owners(ctx);
    const idle = await statementsPerSecond(ctx, async () => {
      await sleep(WINDOW_MS);
      return 0;
    });
    const idleRss = all.map(rssMb);
    const afterIdle = await owners(ctx);

    let sendMs = 0;
    const busy = await statementsPerSecond(ctx, async () => {
      const r = await sendThroughApi(ctx, api);
      sendMs = r.ms;
      // This process's own statements: the logins' reads aside, one per probe of the outcomes.
      return r.probes;
    });
    const busyRss = all.map(rssMb);
    const afterTraffic = await owners(ctx);

    // A worker dies: its accounts wait for their leases to run out, then the others take them.
    // A node's id holds its process id (context.ts), which names each worker's accounts. The
    // worker that drives the most dies: a small fleet can leave one worker with none, as each pass
    // claims up to 50 free accounts.
    const driven = await queryRows<{ owner_node: string; n: number }>(
      ctx.db,
      sql`SELECT owner_node, count(*)::int AS n FROM wa_sessions
          WHERE owner_node IS NOT NULL GROUP BY owner_node ORDER BY n DESC`,
    );
    const victimIndex = driven.length
      ? workers.findIndex((w) => driven[0]!.owner_node.includes(`-${w.child.pid}-`))
      : -1;
    if (victimIndex < 0)
      throw new Error(`no worker drives an account (owners: ${driven.map((d) => d.owner_node).join(', ')})`);
    const victim = workers[victimIndex]!;
    const victimNode = driven[0]!;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await allConnected(ctx, 600_000, [victimNode.owner_node]);
    const takeoverMs = Date.now() - killedAt;

    const names = all.map((p) => p.name);
    const fmtRss = (mbs: number[]) => mbs.map((mb, i) => `${names[i]} ${mb} MB`).join(', ');
    return {
      idle: `${idle.toFixed(1)} statements/s over ${WINDOW_MS / 1000} s (${(idle / all.length).toFixed(1)} a process); leases moved ${moved(atRest, afterIdle)}; all ${FLEET_ACCOUNTS.toLocaleString('en-IN')} connected in ${fmtS(connectMs)} (per worker: ${split.map((s) => s.n).join(', ')}), each evaluated once ${fmtS(evaluateMs)} later`,
      traffic: `${busy.toFixed(1)} statements/s; ${(FLEET_SENDERS * FLEET_MESSAGES).toLocaleString('en-IN')} sent in ${fmtS(sendMs)}; leases moved ${moved(afterIdle, afterTraffic)}`,
      rss: `idle: ${fmtRss(idleRss)}; after the sends: ${fmtRss(busyRss)}`,
      takeover: `${fmtS(takeoverMs)} from the kill until the ${victimNode.n.toLocaleString('en-IN')} accounts of ${victim.name} were connected by the others (leases of ${LEASE_MS / 1000} s)`,
    };
  } finally {
    for (const p of all)
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
    await Promise.all(
      all.map((p) =>
        p.child.exitCode !== null || p.child.signalCode !== null
          ? null
          : new Promise((r) => p.child.once('exit', r)),
      ),
    );
  }
}

/** The fleet on a PostgreSQL database of its own (BENCH_DATABASE_URL's server), dropped after. */
export async function fleetOnOwnDatabase(): Promise<FleetFigures> {
  buildServerOnce();
  const scratch = await createScratchDatabase(process.env.BENCH_DATABASE_URL!, 'bfleet');
  try {
    const database = await openPostgres(scratch.url, { max: 2 });
    try {
      return await fleet(createContext(config(), database, 'bench'), scratch.url);
    } finally {
      await database.close();
    }
  } finally {
    await scratch.drop();
  }
}
