/** The reads part of `npm run bench` (BENCH_ONLY=reads): lists, export and the browser with 1,00,000 jobs. */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { queryRows } from '../../server/src/db/client.ts';
import { buildApp } from '../../server/src/http/app.ts';
import { compactJobStats } from '../../server/src/messaging/jobs/repository.ts';
import { reportInBrowser, type SignedIn } from './report-browser.ts';
import { benchUser, fmtS, linkedAccount, median, size } from './setup.ts';

export const READ_JOBS = size(100_000, 1_000);

const p95 = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
};
const fmtMs = (ms: number) => `${ms.toFixed(1)} ms`;

let builtWebDir: string | undefined;
/**
 * The web app as users get it (npm run build), built once a bench run into a folder of its own
 * (removed when the bench exits), served by the reads part's server for the browser row.
 */
function builtWebApp(): string {
  if (builtWebDir) return builtWebDir;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-web-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('npm', ['run', 'build', '-w', 'web', '--', '--outDir', dir, '--emptyOutDir'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    stdio: 'ignore',
  });
  builtWebDir = dir;
  return dir;
}

/**
 * Reads with 1,00,000 finished jobs of one user over a year (jobs only: the list, its summary and
 * the export read the job rows and their counters, not the recipients), through the HTTP server:
 * the list walked page by page to the oldest job by cursor (every depth), the last page by offset,
 * the Failed tab, and the streamed mis_report.csv with this process's RSS before and at its peak.
 * Their ids are UUIDs, as the service makes them (tables show an id's first 8 characters).
 */
export async function readsAtScale(
  ctx: AppContext,
): Promise<{ list: string; exportCsv: string; browser: string }> {
  const user = await benchUser(ctx, 0);
  const accountId = await linkedAccount(ctx, user.id, 997);
  await ctx.db.execute(
    sql`INSERT INTO message_jobs (id, user_id, session_id, audience, message_type, content, status, total,
                                  sent_count, failed_count, created_at, finished_at)
        SELECT md5('bench job ' || i)::uuid::text, ${user.id}, ${accountId}, 'individuals', 'text',
               'Offer ' || i || ' for you', CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'completed' END, 10,
               CASE WHEN i % 10 = 0 THEN 5 ELSE 10 END, CASE WHEN i % 10 = 0 THEN 5 ELSE 0 END,
               now() - (i * interval '315 seconds'), now() - (i * interval '315 seconds')
        FROM generate_series(1, ${READ_JOBS}) AS i`,
  );
  // A running server folds job_stats' appended rows every few minutes (engine.ts): a year of
  // history is folded by the time anyone reads it, so the bench folds the rows it just added.
  await compactJobStats(ctx.db);
  // And autovacuum has long since visited a year of history. Without it, the list's index-only
  // scan reads the table for every job it skips (the last page by offset: 1,00,000 heap reads),
  // and autovacuum may start on the new rows in the middle of the measurement.
  await ctx.db.execute(sql`VACUUM ANALYZE message_jobs, job_stats`);
  const webDir = builtWebApp();
  const app = await buildApp({ ...ctx, config: { ...ctx.config, webDistDir: webDir } });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const login = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: user.username, password: 'bench-password' },
    });
    const headers = { authorization: `Bearer ${login.json().token as string}` };
    const get = async (query: string) => {
      const t0 = performance.now();
      const res = await fetch(`${address}/api/message-jobs/${user.id}?${query}`, { headers });
      const body = (await res.json()) as { total: number; nextCursor: string | null; jobs: unknown[] };
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return { ms: performance.now() - t0, body };
    };
    const walk: number[] = [];
    let cursor: string | null = null;
    let seen = 0;
    do {
      const { ms, body } = await get(`limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      walk.push(ms);
      seen += body.jobs.length;
      cursor = body.nextCursor;
    } while (cursor);
    if (seen !== READ_JOBS) throw new Error(`the walk saw ${seen} jobs`);
    const lastByOffset: number[] = [];
    const failedTab: number[] = [];
    for (let i = 0; i < 20; i++) {
      lastByOffset.push((await get(`limit=100&offset=${READ_JOBS - 100}`)).ms);
      const failed = await get('status=failed&limit=100');
      if (failed.body.total !== READ_JOBS / 10) throw new Error(`Failed tab total ${failed.body.total}`);
      failedTab.push(failed.ms);
    }
    const list = `p95: cursor walk to the oldest (${(READ_JOBS / 100).toLocaleString('en-IN')} pages) ${fmtMs(p95(walk))}, last page by offset ${fmtMs(p95(lastByOffset))}, Failed tab ${fmtMs(p95(failedTab))}`;

    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    const res = await fetch(`${address}/api/message-jobs/${user.id}/export.csv`, { headers });
    let bytes = 0;
    let lines = 0;
    let tail = Buffer.alloc(0);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
      tail = Buffer.concat([tail, chunk]).subarray(-2048);
    }
    const ms = performance.now() - t0;
    clearInterval(timer);
    // The header, a line per job, and the totals line naming how many jobs it sums.
    const totals = tail.toString('utf8').trimEnd().split('\n').at(-1) ?? '';
    if (lines !== READ_JOBS + 2 || !totals.startsWith('Total,') || !totals.includes(`,${READ_JOBS} jobs,`))
      throw new Error(`the export has ${lines} lines, the last one: ${totals.slice(0, 120)}`);
    const exportCsv = `${fmtS(ms)} (${(bytes / 1e6).toFixed(1)} MB), RSS ${Math.round(before / 1e6)} → peak ${Math.round(peak / 1e6)} MB`;

    // The pages in Chromium, signed in as this user: first rows, and the Failed tab's count.
    const failedInDb = Number(
      (
        await queryRows<{ n: string }>(
          ctx.db,
          sql`SELECT count(*)::text AS n FROM message_jobs WHERE user_id = ${user.id} AND status = 'failed'`,
        )
      )[0]!.n,
    );
    const shots = process.env.BENCH_SCREENSHOTS;
    const b = await reportInBrowser(
      address,
      login.json() as SignedIn,
      shots
        ? {
            report: path.join(shots, 'mis-report-100000-jobs.png'),
            failedTab: path.join(shots, 'jobs-failed-tab-100000-jobs.png'),
          }
        : undefined,
    ).catch((err: Error) => err);
    const browser =
      b instanceof Error
        ? `error: ${b.message.split('\n')[0]}`
        : `MIS Report first row: cold ${fmtMs(b.reportFirstRowMs[0]!)}, warm median ${fmtMs(median(b.reportFirstRowMs.slice(1)))}; Message Jobs first row: warm median ${fmtMs(median(b.jobsFirstRowMs.slice(1)))}; Failed tab ${b.failedTabCount.toLocaleString('en-IN')} (database ${failedInDb.toLocaleString('en-IN')})`;
    return { list, exportCsv, browser };
  } finally {
    await app.close();
  }
}
