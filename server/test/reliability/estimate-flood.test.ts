import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabaseUrl } from '../helpers.ts';
import { recordFigure, recordGoal } from './support/figures.ts';
import { HEALTHZ_GOAL_MS, HEALTHZ_STALL_MS, watchHealthz } from './support/healthz.ts';
import {
  adminAndUser,
  freePort,
  killHard,
  linkedAccount,
  type ServerProcess,
  simulatorEnv,
  startServer,
} from './support/server-process.ts';

/**
 * `POST /api/session/:id/send-estimate` parses and routes a send's recipients as the send does,
 * without charging: a user with the credits for 200,000 numbers asks for three estimates of
 * 200,000 at once (3 MB bodies, sent by curl, another process), three rounds, while `/healthz`
 * is polled one request after another. A real server process on each database.
 */
const execFileP = promisify(execFile);
const IDS = 200_000;
const PARALLEL = 3;
const ROUNDS = 3;
const DB_KINDS = process.env.TEST_DATABASE_URL ? (['pglite', 'postgres'] as const) : (['pglite'] as const);

describe.each(DB_KINDS)('send-estimate flood on %s', (kind) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-estimate-flood-'));
  let server: ServerProcess;
  let token: string;
  let accountId: string;
  let dropDatabase: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    const env = await simulatorEnv({
      PORT: String(await freePort()),
      DATA_DIR: path.join(dir, 'data'),
      SIMULATOR_LINK_AFTER_MS: '3600000',
    });
    if (kind === 'postgres') {
      const pg = await createPostgresDatabaseUrl();
      env.DATABASE_URL = pg.url;
      dropDatabase = pg.drop;
    }
    server = await startServer(env);
    ({ token } = await adminAndUser(server, `estimator${kind}`, IDS));
    accountId = await linkedAccount(server, token, '919811100001');
  });
  afterAll(async () => {
    if (server) await killHard(server);
    await dropDatabase?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`three estimates of ${IDS.toLocaleString('en')} numbers at once: each answered in full, /healthz never stalls`, async () => {
    const body = path.join(dir, 'estimate.json');
    const chatIds = Array.from({ length: IDS }, (_, i) => `9198${String(i).padStart(8, '0')}`);
    fs.writeFileSync(body, JSON.stringify({ chatIds, content: 'Offer' }));
    const size = fs.statSync(body).size;
    expect(size).toBeGreaterThan(3_000_000);
    const estimate = async (i: number) => {
      const out = path.join(dir, `answer-${i}.json`);
      const { stdout } = await execFileP('curl', [
        '-s',
        '-o',
        out,
        '-w',
        '%{http_code} %{time_total}',
        '-H',
        `authorization: Bearer ${token}`,
        '-H',
        'content-type: application/json',
        '--data-binary',
        `@${body}`,
        `${server.url}/api/session/${accountId}/send-estimate`,
      ]);
      const [status, seconds] = stdout.split(' ');
      return {
        status: Number(status),
        ms: Math.round(Number(seconds) * 1000),
        json: JSON.parse(fs.readFileSync(out, 'utf8')),
      };
    };
    let worst = { slowest: 0, slowestAt: 0, slow: 0 };
    let slowestAnswer = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let done = false;
      const answers = Promise.all(
        Array.from({ length: PARALLEL }, (_, i) => estimate(round * PARALLEL + i)),
      ).finally(() => {
        done = true;
      });
      const healthz = await watchHealthz(server, () => done);
      for (const a of await answers) {
        expect(a.status, JSON.stringify(a.json)).toBe(200);
        expect(a.json).toMatchObject({ success: true, recipients: IDS, credits: IDS });
        slowestAnswer = Math.max(slowestAnswer, a.ms);
      }
      if (healthz.slowest > worst.slowest) worst = healthz;
    }
    const section = `send-estimate flood (${kind})`;
    recordFigure(
      section,
      `${ROUNDS} rounds of ${PARALLEL} estimates of ${IDS.toLocaleString('en')} ids (${(size / 1e6).toFixed(1)} MB): slowest answer (ms)`,
      slowestAnswer,
    );
    recordGoal(
      section,
      `/healthz worst during the flood (ms), at (ms), answers > 100 ms`,
      worst.slowest,
      HEALTHZ_GOAL_MS,
      `${worst.slowest} at ${worst.slowestAt}, ${worst.slow}`,
    );
    expect(worst.slowest).toBeLessThan(HEALTHZ_STALL_MS);
  });
});
