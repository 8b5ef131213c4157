/** The start-up and idle parts of `npm run bench` (BENCH_ONLY=startup|idle): start-up time, idle RSS, and the statements an idle node runs. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { queryRows } from '../../server/src/db/client.ts';
import { createScratchDatabase } from '../../server/src/db/scratch.ts';
import { startEngine } from '../../server/src/engine.ts';
import { acceptSend } from '../../server/src/messaging/accept/send.ts';
import { signal } from '../../server/src/signals.ts';
import {
  allEvaluated,
  benchUser,
  buildServerOnce,
  commits,
  fmtS,
  linkedAccount,
  numbers,
  REPO_ROOT,
  size,
} from './setup.ts';
import { tallyStatements, topStatements } from './statement-tally.ts';

/**
 * The compiled server (`node server/dist/main.js`, what `npm start` runs) on a fresh database:
 * time from spawn to /readyz answering 200, and its resident memory after 5 s idle.
 */
export async function startupAndIdle(kind: 'pglite' | 'postgres'): Promise<{ startup: string; rss: string }> {
  buildServerOnce();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-start-'));
  const scratch =
    kind === 'postgres' ? await createScratchDatabase(process.env.BENCH_DATABASE_URL!, 'bstart') : null;
  const port = Number(process.env.BENCH_STARTUP_PORT ?? 3379);
  const started = performance.now();
  const child = spawn(process.execPath, ['server/dist/main.js'], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      WA_PROVIDER: 'simulator',
      LOG_LEVEL: 'warn',
      WEB_DIST_DIR: '/nonexistent-web-dist',
      ...(scratch ? { DATABASE_URL: scratch.url } : { DATABASE_URL: '' }),
    },
  });
  try {
    let ready = 0;
    for (const until = Date.now() + 60_000; Date.now() < until; ) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) {
        ready = performance.now() - started;
        break;
      }
      await sleep(50);
    }
    if (!ready) throw new Error('the server did not become ready within 60 s');
    await sleep(size(5_000, 1_000));
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { startup: fmtS(ready), rss: `${Math.round(kb / 1024)} MB` };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

export const IDLE_ACCOUNTS = Number(process.env.BENCH_IDLE_ACCOUNTS ?? size(1000, 20));
/** Longer than the health check's period (HEALTH_CHECK_MS, a minute): each window holds one. */
export const IDLE_WINDOW_MS = Number(process.env.BENCH_IDLE_WINDOW_MS ?? size(65_000, 2_000));
/** How long PostgreSQL's backends may take to report their counts (10 s when idle; smoke runs do not wait). */
const STATS_SETTLE_MS = size(12_000, 1_500);
/** The traffic between the two windows: this many of the accounts send TRAFFIC_EACH messages each. */
const TRAFFIC_ACCOUNTS = size(100, 5);
const TRAFFIC_EACH = size(100, 5);

/** Statements committed per second, this process's CPU and the statements it sent most, over one window. */
async function idleWindow(ctx: AppContext): Promise<string> {
  // Backends report their counts when idle, up to 10 s late: what came before must be counted
  // before the window starts, and the window's own after it ends.
  await sleep(STATS_SETTLE_MS);
  const before = await commits(ctx);
  const cpu = process.cpuUsage();
  const tally = tallyStatements();
  const startedAt = Date.now();
  await sleep(IDLE_WINDOW_MS);
  const used = process.cpuUsage(cpu);
  const elapsed = Date.now() - startedAt;
  const counted = tally.stop();
  await sleep(STATS_SETTLE_MS);
  // The two probes' own statements (2 each) are not the node's.
  const perS = ((await commits(ctx)) - before - 2) / (elapsed / 1000);
  const cpuPct = ((used.user + used.system) / 1000 / elapsed) * 100;
  const top = topStatements(counted, 2)
    .map((t) => `${t.slice(0, 50)}…`)
    .join('; ');
  return `${perS.toFixed(1)} statements/s, CPU ${cpuPct.toFixed(1)} % of a core (most sent: ${top || 'none'})`;
}

/**
 * The idle cost of one node: IDLE_ACCOUNTS connected simulated accounts with nothing to send,
 * the engine running, after its first health check. Transactions committed on the database per second (each statement outside
 * a transaction is one) and this process's CPU over a window after the accounts connected, then
 * again after TRAFFIC_ACCOUNTS of them sent TRAFFIC_EACH messages each (what a node does after a
 * day of sends: their health, the undelivered sweep over them); RSS at the end.
 */
export async function idleCost(ctx: AppContext): Promise<string> {
  const user = await benchUser(ctx, TRAFFIC_ACCOUNTS * TRAFFIC_EACH);
  const accountIds: string[] = [];
  for (let i = 0; i < IDLE_ACCOUNTS; i++) accountIds.push(await linkedAccount(ctx, user.id, 2000 + i));
  const engine = await startEngine(ctx);
  try {
    const until = Date.now() + 300_000;
    while (accountIds.some((s) => !engine.runtime.transportFor(s))) {
      if (Date.now() > until) throw new Error(`accounts did not connect within 300 s`);
      // A pass takes up to 50 free accounts; the heartbeat alone would take 20 passes, 10 s apart.
      await signal(ctx, 'session-changed', accountIds[0]!);
      await sleep(200);
    }
    await allEvaluated(ctx, IDLE_ACCOUNTS, 180_000);
    const beforeTraffic = await idleWindow(ctx);
    const senders = accountIds.slice(0, TRAFFIC_ACCOUNTS);
    for (const [i, accountId] of senders.entries()) {
      await acceptSend(
        ctx,
        user,
        accountId,
        { chatIds: numbers(TRAFFIC_EACH, 919_400_000_001 + i * 1000), content: 'Traffic' },
        'individuals',
      );
    }
    const total = TRAFFIC_ACCOUNTS * TRAFFIC_EACH;
    for (const deadline = Date.now() + 600_000; ; ) {
      const [row] = await queryRows<{ done: number }>(
        ctx.db,
        sql`SELECT coalesce(sum(sent_count + failed_count), 0)::int AS done FROM message_jobs`,
      );
      if ((row?.done ?? 0) >= total) break;
      if (Date.now() > deadline) throw new Error(`only ${row?.done} of ${total} sent after 10 minutes`);
      await sleep(200);
    }
    // The health check evaluates a sending account again at each check until its own last send
    // is HEALTH_MARGIN_MS old (its margin for writes begun before it; a minute, a second in a
    // smoke run). That margin after the last send of all, and two checks later, nothing of the
    // traffic is left for it: idle after traffic starts then. (Waiting for each sender's
    // evaluation to pass the margin after the last send of all timed out whenever one sender
    // finished more than a check's period before another.)
    const [last] = await queryRows<{ ms: number }>(
      ctx.db,
      sql`SELECT greatest(0, extract(epoch FROM (SELECT max(sent_at) FROM message_job_recipients)
                                   - now()) * 1000 + ${ctx.config.healthMarginMs}::float8)::float8 AS ms`,
    );
    await sleep((last?.ms ?? 0) + 2 * ctx.config.healthCheckMs);
    const afterTraffic = await idleWindow(ctx);
    const rss = process.memoryUsage().rss / 1024 / 1024;
    return `before traffic: ${beforeTraffic}; after ${total.toLocaleString('en-IN')} sends by ${TRAFFIC_ACCOUNTS} of the accounts: ${afterTraffic}; RSS ${Math.round(rss)} MB`;
  } finally {
    await engine.stop();
  }
}
