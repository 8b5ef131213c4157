/** The start-up and idle parts of `npm run bench` (BENCH_ONLY=startup|idle): start-up time, idle RSS, and the statements an idle node runs. */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { queryRows } from '../../server/src/db/client.ts';
import { createScratchDatabase } from '../../server/src/db/scratch.ts';
import { startEngine } from '../../server/src/engine.ts';
import { signal } from '../../server/src/signals.ts';
import { benchUser, fmtS, linkedSession } from './setup.ts';

/**
 * The compiled server (`node server/dist/main.js`, what `npm start` runs) on a fresh database:
 * time from spawn to /readyz answering 200, and its resident memory after 5 s idle.
 */
export async function startupAndIdle(kind: 'pglite' | 'postgres'): Promise<{ startup: string; rss: string }> {
  const repoRoot = path.resolve(import.meta.dirname, '../..');
  execFileSync('npm', ['run', 'build', '-w', 'server'], { cwd: repoRoot, stdio: 'ignore' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-start-'));
  const scratch =
    kind === 'postgres' ? await createScratchDatabase(process.env.BENCH_DATABASE_URL!, 'bstart') : null;
  const port = 4300 + Math.floor(Math.random() * 500);
  const started = performance.now();
  const child = spawn(process.execPath, ['server/dist/main.js'], {
    cwd: repoRoot,
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
    await sleep(5_000);
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

export const IDLE_ACCOUNTS = Number(process.env.BENCH_IDLE_ACCOUNTS ?? 1000);
export const IDLE_WINDOW_MS = 20_000;

/**
 * The idle cost of one node: IDLE_ACCOUNTS connected simulated accounts with nothing to send,
 * the engine running. Transactions committed on the database per second (each statement outside
 * a transaction is one), this process's CPU and RSS, over 20 s after the accounts connected.
 */
export async function idleCost(ctx: AppContext): Promise<string> {
  const user = await benchUser(ctx, 0);
  const sessionIds: string[] = [];
  for (let i = 0; i < IDLE_ACCOUNTS; i++) sessionIds.push(await linkedSession(ctx, user.id, 2000 + i));
  const engine = await startEngine(ctx);
  try {
    const until = Date.now() + 180_000;
    while (sessionIds.some((s) => !engine.runtime.transportFor(s))) {
      if (Date.now() > until) throw new Error(`accounts did not connect within 180 s`);
      // A pass takes up to 50 free accounts; the heartbeat alone would take 20 passes, 10 s apart.
      await signal(ctx, 'session-changed', sessionIds[0]!);
      await sleep(200);
    }
    // Backends report their counts when idle, up to 10 s late: the burst of connecting 1,000
    // accounts must be counted before the window starts, and the window's own after it ends.
    await sleep(12_000);
    const commits = async () => {
      await ctx.db.execute(sql`SELECT pg_stat_clear_snapshot()`);
      const [row] = await queryRows<{ n: string }>(
        ctx.db,
        sql`SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()`,
      );
      return Number(row?.n ?? 0);
    };
    const before = await commits();
    const cpu = process.cpuUsage();
    const startedAt = Date.now();
    await sleep(IDLE_WINDOW_MS);
    const used = process.cpuUsage(cpu);
    const elapsed = Date.now() - startedAt;
    await sleep(11_000);
    // The two probes' own statements (2 each) are not the node's.
    const perS = ((await commits()) - before - 2) / (elapsed / 1000);
    const cpuPct = ((used.user + used.system) / 1000 / elapsed) * 100;
    const rss = process.memoryUsage().rss / 1024 / 1024;
    return `${perS.toFixed(1)} statements/s, CPU ${cpuPct.toFixed(1)} % of a core, RSS ${Math.round(rss)} MB`;
  } finally {
    await engine.stop();
  }
}
