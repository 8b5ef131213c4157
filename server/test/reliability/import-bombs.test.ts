import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactsXlsx, longCellsCsv, wideCsv } from '../fakes/big-uploads.ts';
import { createPostgresDatabaseUrl } from '../helpers.ts';
import { recordFigure, recordGoal } from './support/figures.ts';
import { HEALTHZ_GOAL_MS, HEALTHZ_STALL_MS, watchHealthz } from './support/healthz.ts';
import {
  adminAndUser,
  api,
  killHard,
  type ServerProcess,
  simulatorEnv,
  startServer,
} from './support/server-process.ts';

/**
 * Uploads made to exhaust the server (an .xlsx that inflates to 178 MB, a CSV 50,000 columns
 * wide, 49 MB of long cells inside every limit). A real server process on each database; while each upload runs,
 * `/healthz` is polled one request after another and the process's resident memory sampled
 * from /proc. Each upload must end in a clear 400 or a bounded import with nothing half-written.
 */
const execFileP = promisify(execFile);
const RSS_LIMIT_MB = 600;
const DB_KINDS = process.env.TEST_DATABASE_URL ? (['pglite', 'postgres'] as const) : (['pglite'] as const);
function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

type Measured = {
  status: number;
  message: string;
  ms: number;
  slowestHealthz: number;
  /** When the slowest /healthz was sent, in ms after the upload began. */
  slowestAt: number;
  /** /healthz answers slower than 100 ms. */
  slow: number;
  peakRssMb: number;
};

/** Uploads `file` and, until the answer comes, polls /healthz and samples the server's RSS. */
async function measuredUpload(
  server: ServerProcess,
  dir: string,
  token: string,
  file: Buffer,
  fileName: string,
  listName: string,
): Promise<Measured> {
  // Sent by curl, another process: encoding a 17 MB body in this one would delay its own
  // /healthz probes and be counted against the server.
  const upload = path.join(dir, fileName);
  fs.writeFileSync(upload, file);
  const out = path.join(dir, `${fileName}.answer`);
  const t0 = performance.now();
  let done = false;
  const answer = execFileP('curl', [
    '-s',
    '-o',
    out,
    '-w',
    '%{http_code}',
    '-H',
    `authorization: Bearer ${token}`,
    '-F',
    `name=${listName}`,
    '-F',
    `file=@${upload};filename=${fileName}`,
    `${server.url}/api/contact-lists/import`,
  ])
    .then(({ stdout }) => {
      const text = fs.readFileSync(out, 'utf8');
      let json: { message?: string } = {};
      try {
        json = JSON.parse(text);
      } catch {}
      return { status: Number(stdout), json };
    })
    .finally(() => {
      done = true;
    });
  let peakRssMb = rssMb(server.child.pid!);
  const sampler = (async () => {
    while (!done) {
      peakRssMb = Math.max(peakRssMb, rssMb(server.child.pid!));
      await sleep(20);
    }
  })();
  const healthz = await watchHealthz(server, () => done);
  const res = await answer;
  await sampler;
  return {
    status: res.status,
    message: res.json.message ?? '',
    ms: Math.round(performance.now() - t0),
    slowestHealthz: healthz.slowest,
    slowestAt: healthz.slowestAt,
    slow: healthz.slow,
    peakRssMb: Math.round(peakRssMb),
  };
}

describe.each(DB_KINDS)('import bombs on %s: a real server stays responsive and bounded', (kind) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-import-bombs-'));
  const section = `import bombs (${kind})`;
  let server: ServerProcess;
  let token: string;
  let dropDatabase: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    const env = await simulatorEnv({ DATA_DIR: path.join(dir, 'data') });
    if (kind === 'postgres') {
      const pg = await createPostgresDatabaseUrl();
      env.DATABASE_URL = pg.url;
      dropDatabase = pg.drop;
    }
    server = await startServer(env);
    ({ token } = await adminAndUser(server, `bomber${kind}`, 1));
  });
  afterAll(async () => {
    if (server) await killHard(server);
    await dropDatabase?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const lists = async () =>
    (await api(server, 'GET', '/api/contact-lists', token)).json.lists as { name: string; count: number }[];

  const cases = [
    { label: 'CSV 50,000 columns x 60 rows', name: 'wide.csv', make: () => wideCsv(50_000, 60) },
    {
      label: 'CSV 199 columns of 990 characters x 250 rows',
      name: 'long-cells.csv',
      make: () => longCellsCsv(199, 990, 250, 37),
    },
    { label: 'xlsx 400,000 rows', name: 'rows400k.xlsx', make: () => contactsXlsx(400_000, 400) },
    { label: 'xlsx 1,000,000 rows', name: 'rows1m.xlsx', make: () => contactsXlsx(1_000_000, 1000) },
  ];

  for (const c of cases) {
    it(`${c.label}: /healthz never stalls, RSS < ${RSS_LIMIT_MB} MB, a clear 400 or a bounded import`, async () => {
      const file = c.make();
      const before = await lists();
      const quietRss = Math.round(rssMb(server.child.pid!));
      const m = await measuredUpload(server, dir, token, file, c.name, c.label);
      const after = await lists();
      const made = after.filter((l) => l.name === c.label);
      const size = `${(file.length / 1e6).toFixed(1)} MB`;
      recordFigure(section, `${c.label} (${size}): answer`, `${m.status} ${m.message}`.trim());
      recordFigure(section, `${c.label}: answered in (ms)`, m.ms);
      recordGoal(
        section,
        `${c.label}: /healthz slowest (ms), at (ms), answers > 100 ms`,
        m.slowestHealthz,
        HEALTHZ_GOAL_MS,
        `${m.slowestHealthz} at ${m.slowestAt}, ${m.slow}`,
      );
      recordFigure(section, `${c.label}: RSS quiet -> peak (MB)`, `${quietRss} -> ${m.peakRssMb}`);
      recordFigure(section, `${c.label}: contacts imported`, made[0]?.count ?? 0);

      expect([200, 400], m.message).toContain(m.status);
      if (m.status === 400) {
        expect(m.message).not.toBe('');
        // Nothing half-written: no list appeared.
        expect(after).toEqual(before);
      } else {
        expect(made).toHaveLength(1);
        expect(made[0]!.count).toBeGreaterThan(0);
      }
      expect(m.slowestHealthz).toBeLessThan(HEALTHZ_STALL_MS);
      expect(m.peakRssMb).toBeLessThan(RSS_LIMIT_MB);
    });
  }
});
