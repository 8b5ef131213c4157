import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MAX_SEND_RECIPIENTS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { importContactList } from '../../server/src/contacts/import.ts';
import { csvRows, rowsOfFile } from '../../server/src/contacts/table-rows.ts';
import type { AppContext } from '../../server/src/context.ts';
import type { Database } from '../../server/src/db/client.ts';
import { users } from '../../server/src/db/schema.ts';
import { buildApp } from '../../server/src/http/app.ts';
import { acceptSend } from '../../server/src/messaging/accept/send.ts';
import { type BaileysRow, baileysRows } from './baileys.ts';
import { ACCOUNTS, dispatchRound, floorRate, PER_ACCOUNT } from './dispatch.ts';
import { FLEET_ACCOUNTS, FLEET_MESSAGES, FLEET_SENDERS, FLEET_WORKERS, fleetOnOwnDatabase } from './fleet.ts';
import { IDLE_ACCOUNTS, idleCost, startupAndIdle } from './idle.ts';
import { INBOX_THREADS, inboxAtScale } from './inbox.ts';
import { READ_JOBS, readsAtScale } from './reads.ts';
import {
  benchAuth,
  benchUser,
  context,
  fmtRate,
  fmtS,
  linkedAccount,
  markdownTable,
  median,
  numbers,
  openBenchDatabase,
  SMOKE,
  size,
} from './setup.ts';

const ACCEPT_RECIPIENTS = Number(process.env.BENCH_ACCEPT_RECIPIENTS ?? size(100_000, 2_000));

type Row = { measure: string; goal: string; values: Record<string, string> };

/** `DISPATCH_ROUNDS` rates: their median, then each run. */
const rates = (runs: number[]) =>
  `median ${fmtRate(median(runs))} (${runs.map((r) => Math.round(r).toLocaleString('en-IN')).join(', ')}; ${(ACCOUNTS * PER_ACCOUNT).toLocaleString('en-IN')} each)`;
const DISPATCH_ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(3, 1));

const RUNS = size(3, 1);

/**
 * Best and median of `RUNS` timed runs after one untimed run of the same size: the first run
 * also pays for JIT and for growing PGlite's WebAssembly memory, which a running server has done.
 * With `floor`, each run is followed by it on as many rows, and its median is printed beside.
 */
async function repeated(
  run: (n: number) => Promise<number>,
  floor?: (n: number) => Promise<number>,
): Promise<string> {
  const first = await run(ACCEPT_RECIPIENTS);
  const times: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    times.push(await run(ACCEPT_RECIPIENTS));
    if (floor) floors.push(await floor(ACCEPT_RECIPIENTS));
  }
  times.sort((a, b) => a - b);
  const ours = `best ${fmtS(times[0]!)}, median ${fmtS(median(times))} (first ${fmtS(first)})`;
  return floor ? `${ours}; the bare INSERT of as many rows: median ${fmtS(median(floors))}` : ours;
}

let numberBase = 919_100_000_000;
const freshNumbers = (n: number) => {
  numberBase += n;
  return numbers(n, numberBase);
};

/**
 * What no acceptance of `n` recipients can beat on this database: the INSERT of as many rows of
 * the same shape into message_job_recipients (its indexes, its identity, one transaction), made
 * by PostgreSQL itself (generate_series), with nothing sent, parsed, checked or charged.
 */
async function bareInsert(ctx: AppContext, accountId: string, n: number): Promise<number> {
  const jobId = `floor-${numberBase}`;
  const first = numberBase + 1;
  numberBase += n;
  const started = performance.now();
  await ctx.db.transaction(async (tx) => {
    await tx.execute(
      sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, chat_name, content, price, due_at)
          SELECT ${jobId}, ${accountId}, (${first}::bigint + g)::text, NULL, NULL, 1, now() + interval '1 hour'
          FROM generate_series(0, ${n - 1}::int) AS g`,
    );
  });
  return performance.now() - started;
}

/**
 * Accepting a send of bare numbers (as API clients write them: each read by the phone rule), or
 * of chat ids (`<digits>@s.whatsapp.net`, as the bulk page sends the numbers it has read already).
 * The numbers' row prints the bare INSERT's time beside its own.
 */
async function acceptService(ctx: AppContext, asChatIds = false): Promise<string> {
  const user = await benchUser(ctx, (RUNS + 1) * ACCEPT_RECIPIENTS);
  const accountId = await linkedAccount(ctx, user.id, asChatIds ? 995 : 999);
  return repeated(
    async (n) => {
      const chatIds = freshNumbers(n).map((c) => (asChatIds ? `${c}@s.whatsapp.net` : c));
      const started = performance.now();
      await acceptSend(ctx, user, accountId, { chatIds, content: 'Benchmark' }, 'individuals');
      return performance.now() - started;
    },
    asChatIds ? undefined : (n) => bareInsert(ctx, accountId, n),
  );
}

async function acceptHttp(ctx: AppContext): Promise<string> {
  const app = await buildApp(ctx);
  await app.ready();
  try {
    const user = await benchUser(ctx, (RUNS + 1) * ACCEPT_RECIPIENTS);
    const accountId = await linkedAccount(ctx, user.id, 998);
    const headers = await benchAuth(app, user.username);
    return await repeated(async (n) => {
      const payload = JSON.stringify({ chatIds: freshNumbers(n), content: 'Benchmark' });
      const started = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendIndividualMessage`,
        headers: { ...headers, 'content-type': 'application/json' },
        payload,
      });
      const ms = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${res.body}`);
      return ms;
    });
  } finally {
    await app.close();
  }
}

const IMPORT_CONTACTS = size(1_000_000, 10_000);

/**
 * Importing a 1,000,000-line CSV (name, phone, area) as the upload route does once the upload is
 * on disk (rowsOfFile: 64 KB reads): the time, and the process RSS before and at its peak (flat
 * memory means the peak does not grow with the file).
 */
async function importContacts(ctx: AppContext): Promise<string> {
  const user = await benchUser(ctx, 0);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-import-'));
  const file = path.join(dir, 'contacts.csv');
  try {
    // Written by a child process: the strings it takes leave this process's heap as it was.
    const write = `const fs = require('node:fs');
      const fd = fs.openSync(process.argv[1], 'w');
      fs.writeSync(fd, 'name,phone,area\\n');
      for (let i = 0; i < ${IMPORT_CONTACTS}; i += 1000) {
        let s = '';
        for (let j = i; j < Math.min(${IMPORT_CONTACTS}, i + 1000); j++) s += 'Person ' + j + ',' + (9000000000 + j) + ',Area ' + (j % 50) + '\\n';
        fs.writeSync(fd, s);
      }
      fs.closeSync(fd);`;
    execFileSync(process.execPath, ['-e', write, file]);
    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 100);
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    const result = await importContactList(
      ctx.db,
      user,
      { name: 'bench', rows: rowsOfFile(file), embedded: ctx.database.kind === 'pglite' },
      '91',
    );
    const ms = performance.now() - t0;
    clearInterval(timer);
    // On PGlite the import can hold the event loop for its whole length, so the timer never ran.
    peak = Math.max(peak, before, process.memoryUsage().rss);
    if (result.imported !== IMPORT_CONTACTS) throw new Error(`imported ${result.imported}`);
    const mb = (bytes: number) => Math.round(bytes / 1e6);
    return `${fmtS(ms)}, RSS ${mb(before)} → peak ${mb(peak)} MB (+${mb(peak - before)} MB)`;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const PERSONAL_CONTACTS = size(100_000, 1_000);

/**
 * Accepting a send of `Hi {{name|friend}}, {Namaste|Hello}!` to a 1,00,000-contact list (opt-out
 * check, one rendered text per recipient, credits and rows in one transaction), through the
 * service; best of three after one untimed run.
 */
async function personalisedAccept(ctx: AppContext): Promise<string> {
  const user = await benchUser(ctx, 4 * PERSONAL_CONTACTS);
  const accountId = await linkedAccount(ctx, user.id, 996);
  async function* chunks() {
    let s = 'name,phone\n';
    for (let j = 0; j < PERSONAL_CONTACTS; j++) s += `Person ${j},${8_000_000_000 + j}\n`;
    yield Buffer.from(s);
  }
  const { list } = await importContactList(
    ctx.db,
    user,
    { name: 'big', rows: csvRows(chunks()), embedded: ctx.database.kind === 'pglite' },
    '91',
  );
  const times: number[] = [];
  for (let i = 0; i < 4; i++) {
    const t0 = performance.now();
    const res = await acceptSend(
      ctx,
      user,
      accountId,
      { contactListIds: [list.id], content: 'Hi {{name|friend}}, {Namaste|Hello}!' },
      'individuals',
    );
    times.push(performance.now() - t0);
    if (res.totalChats !== PERSONAL_CONTACTS) throw new Error(`accepted ${res.totalChats}`);
  }
  const [first, ...rest] = times;
  rest.sort((a, b) => a - b);
  return `best ${fmtS(rest[0]!)}, median ${fmtS(rest[1]!)} (first ${fmtS(first!)})`;
}

/** What went wrong, row by row: `npm run bench` prints them and exits 1 when there is any. */
const errors: string[] = [];

/** A row's figure for `kind`, or `error: …` in its cell (and in `errors`). */
async function measure(row: Row, kind: string, fn: () => Promise<string>): Promise<void> {
  const started = performance.now();
  try {
    row.values[kind] = await fn();
  } catch (err) {
    const message = (err as Error).message.split('\n')[0]!;
    row.values[kind] = `error: ${message}`;
    errors.push(`${row.measure} (${kind}): ${message}`);
  }
  // What each row costs the run (the smoke run's time is kept under two minutes).
  console.error(
    `bench: ${row.measure} (${kind}) took ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/**
 * Runs one part of the bench on a database of its own, made for it and dropped after it: a row's
 * figure never depends on what the rows before it left behind (an idle node measured after the
 * dispatch rounds read their 30,000 sends; the accept rows' 12,00,000 recipients weighed on dispatch).
 */
async function onOwnDatabase(
  kind: 'pglite' | 'postgres',
  rowsOfPart: Row[],
  part: (ctx: AppContext) => Promise<void>,
): Promise<void> {
  let database: Database;
  try {
    database = await openBenchDatabase(kind);
  } catch (err) {
    for (const row of rowsOfPart) await measure(row, kind, () => Promise.reject(err));
    return;
  }
  try {
    await part(context(database));
  } finally {
    await database.close().catch(() => {});
  }
}

const row = (measure: string, goal: string): Row => ({ measure, goal, values: {} });

async function main() {
  let kinds: Array<'pglite' | 'postgres'> = process.env.BENCH_DATABASE_URL
    ? ['pglite', 'postgres']
    : ['pglite'];
  if (process.env.BENCH_DB === 'pglite' || process.env.BENCH_DB === 'postgres') {
    kinds = kinds.filter((k) => k === process.env.BENCH_DB);
  }
  const n = (count: number) => count.toLocaleString('en-IN');
  const r = {
    acceptService: row(
      `accept ${n(ACCEPT_RECIPIENTS)} recipients (service)`,
      '≤ 0.5 s for 1,00,000 and ≤ 5 s for 10,00,000 on PostgreSQL',
    ),
    acceptHttp: row(`accept ${n(ACCEPT_RECIPIENTS)} recipients (HTTP)`, '≤ 0.5 s for 1,00,000 on PostgreSQL'),
    dispatch: row(
      `dispatch, ${ACCOUNTS} accounts × ${PER_ACCOUNT}`,
      '≥ 5,000/s PostgreSQL, ≥ 1,500/s PGlite',
    ),
    floor: row('bare-SQL floor (one UPDATE … SKIP LOCKED LIMIT 1 loop per account)', ''),
    ratio: row('dispatch ÷ floor', '≥ 1.5×'),
    startup: row('compiled server: start to ready (fresh database)', ''),
    idle: row(`idle node, ${n(IDLE_ACCOUNTS)} connected accounts`, '≤ 10 statements/s'),
    idleRss: row('compiled server: idle RSS after 5 s', '≤ 150 MB PostgreSQL, ≤ 350 MB PGlite'),
    importContacts: row(
      `import ${n(IMPORT_CONTACTS)} contacts (CSV)`,
      '< 10 s PostgreSQL, RSS growth < 200 MB',
    ),
    list: row(`list ${n(READ_JOBS)} jobs of one user`, 'p95 < 50 ms at any depth'),
    inbox: row(`Inbox: first page of ${n(INBOX_THREADS)} threads of one user (HTTP)`, 'p95 < 100 ms'),
    exportCsv: row(`export mis_report.csv of ${n(READ_JOBS)} jobs`, '< 5 s, flat memory'),
    personalised: row(`accept {{name}} to a ${n(PERSONAL_CONTACTS)}-contact list`, '≤ 2 s PostgreSQL'),
    browser: row(`report and jobs pages in Chromium, ${n(READ_JOBS)} jobs`, 'first rows < 1 s'),
    fleetIdle: row(
      `fleet: ${n(FLEET_ACCOUNTS)} accounts, ${FLEET_WORKERS} workers + 1 API process, idle`,
      '≤ 10 statements/s a node, 0 leases moved',
    ),
    fleetTraffic: row(
      `fleet: ${n(FLEET_SENDERS)} accounts send ${FLEET_MESSAGES} each through the API`,
      '0 leases moved',
    ),
    fleetRss: row('fleet: RSS per process', ''),
    // No node claims more than 50 free accounts a pass (claimFreeAccounts in
    // server/src/accounts/repository.ts): a fleet started together spreads over its nodes (the
    // idle row's per-worker counts), and a takeover is a lease, then passes a third of a lease
    // apart on each survivor.
    fleetTakeover: row(
      'fleet: a worker killed, its accounts taken over',
      'a lease, then 50 accounts a pass on each survivor',
    ),
    acceptChatIds: row(
      `accept ${n(ACCEPT_RECIPIENTS)} chat ids, as the bulk page sends them (service)`,
      '≤ 1.0 s on PostgreSQL',
    ),
    webhook: row(
      "Cloud status webhooks at a HIGH-throughput number's rate (one node, real HTTP)",
      '3,000 a second, p99 < 200 ms',
    ),
    cloudHigh: row(
      "a HIGH-throughput Cloud number's send through the engine (fake Graph API over HTTP, in a process of its own)",
      '1,000 a second, busiest second ≤ 1,000',
    ),
  };
  const only = process.env.BENCH_ONLY;
  const wants = (part: string) => !only || only === part;
  let baileys: BaileysRow[] = [];
  if (wants('baileys')) process.stderr.write('bench: baileys through the emulator...\n');
  const baileysRun = wants('baileys') ? baileysRows() : Promise.resolve([]);
  // A smoke run's figures mean nothing: its Baileys probes (processes of their own) run beside
  // the database parts. A full run measures them alone, first.
  if (!SMOKE) baileys = await baileysRun;
  // So do its parts that mostly wait (the idle row's windows, the fleet's processes), each on a
  // database of its own, beside the parts after them; a full run measures each alone, in its place.
  const beside: Promise<void>[] = [];
  const waiting = async (part: () => Promise<void>) => {
    if (SMOKE) beside.push(part());
    else await part();
  };
  for (const kind of only === 'baileys' || only === 'cloud' ? [] : kinds) {
    process.stderr.write(`bench: ${kind}...\n`);
    if (wants('accept')) {
      // A database each: a row run after another inserted into a table 4,00,000 recipients
      // (about 120 MB) fuller, past PostgreSQL's shared buffers (128 MB here), and each of its
      // inserts wrote out twice the pages (docs/performance.md, the accept rows).
      await onOwnDatabase(kind, [r.acceptService], async (ctx) => {
        await measure(r.acceptService, kind, () => acceptService(ctx));
      });
      if (ACCEPT_RECIPIENTS > MAX_SEND_RECIPIENTS)
        r.acceptHttp.values[kind] = `not run: a request names at most ${n(MAX_SEND_RECIPIENTS)} recipients`;
      else
        await onOwnDatabase(kind, [r.acceptHttp], async (ctx) => {
          await measure(r.acceptHttp, kind, () => acceptHttp(ctx));
        });
      await onOwnDatabase(kind, [r.acceptChatIds], async (ctx) => {
        await measure(r.acceptChatIds, kind, () => acceptService(ctx, true));
      });
    }
    if (wants('dispatch')) {
      await onOwnDatabase(kind, [r.dispatch], async (ctx) => {
        // Rounds of floor then ours, each on fresh rows: a busy 2-core machine moves one run by ±20 %.
        const floors: number[] = [];
        const ours: number[] = [];
        const lags: number[] = [];
        const updates: string[] = [];
        const cpus: string[] = [];
        await measure(r.dispatch, kind, async () => {
          for (let i = 0; i < DISPATCH_ROUNDS; i++) {
            floors.push(await floorRate(ctx));
            const round = await dispatchRound(ctx, kind === 'postgres');
            ours.push(round.rate);
            lags.push(round.lagMs);
            cpus.push(
              `node ${round.cpu.node.toFixed(2)} s` +
                (round.cpu.database === null ? '' : ` + database ${round.cpu.database.toFixed(2)} s`),
            );
            if (round.updates) updates.push(`${round.updates.hot} of ${round.updates.all}`);
            await ctx.db.delete(users);
          }
          const hot = updates.length > 0 ? `; recipient updates HOT: ${updates.join(', ')}` : '';
          return `${rates(ours)}, first outcome ${lags.join(', ')} ms after the start; CPU from the start to the last outcome: ${cpus.join(', ')}${hot}`;
        });
        if (floors.length === DISPATCH_ROUNDS) {
          r.floor.values[kind] = rates(floors);
          r.ratio.values[kind] = `${(median(ours) / median(floors)).toFixed(2)}× (medians)`;
        }
      });
    }
    // Commit counts come from PostgreSQL's statistics, which PGlite does not keep.
    if (kind === 'postgres' && wants('idle')) {
      await waiting(() => onOwnDatabase(kind, [r.idle], (ctx) => measure(r.idle, kind, () => idleCost(ctx))));
    }
    if (kind === 'postgres' && wants('fleet')) {
      await waiting(() =>
        measure(r.fleetIdle, kind, async () => {
          const f = await fleetOnOwnDatabase();
          r.fleetTraffic.values[kind] = f.traffic;
          r.fleetRss.values[kind] = f.rss;
          r.fleetTakeover.values[kind] = f.takeover;
          return f.idle;
        }),
      );
    }
    if (wants('contacts')) {
      await onOwnDatabase(kind, [r.importContacts, r.personalised], async (ctx) => {
        await measure(r.importContacts, kind, () => importContacts(ctx));
        await measure(r.personalised, kind, () => personalisedAccept(ctx));
      });
    }
    if (wants('reads')) {
      await onOwnDatabase(kind, [r.list, r.exportCsv, r.browser], async (ctx) => {
        const reads = readsAtScale(ctx);
        await measure(r.list, kind, async () => (await reads).list);
        await measure(r.exportCsv, kind, async () => (await reads).exportCsv);
        await measure(r.browser, kind, async () => (await reads).browser);
      });
    }
    if (wants('webhook')) {
      const { cloudWebhookRow } = await import('./cloud-webhook.ts');
      await onOwnDatabase(kind, [r.webhook], (ctx) => measure(r.webhook, kind, () => cloudWebhookRow(ctx)));
    }
    if (wants('cloudhigh')) {
      const { cloudHighRow } = await import('./cloud-high.ts');
      await onOwnDatabase(kind, [r.cloudHigh], (ctx) => measure(r.cloudHigh, kind, () => cloudHighRow(ctx)));
    }
    if (wants('inbox')) {
      await onOwnDatabase(kind, [r.inbox], (ctx) => measure(r.inbox, kind, () => inboxAtScale(ctx)));
    }
    if (wants('startup')) {
      const started = startupAndIdle(kind);
      await measure(r.startup, kind, async () => (await started).startup);
      await measure(r.idleRss, kind, async () => (await started).rss);
    }
  }

  await Promise.all(beside);
  if (SMOKE) baileys = await baileysRun;
  for (const b of baileys) if (b.value.startsWith('error:')) errors.push(`${b.measure}: ${b.value}`);

  if (only !== 'baileys' && only !== 'cloud') {
    // BENCH_ONLY: the rows that part measured.
    const rows = Object.values(r).filter((x) => !only || Object.keys(x.values).length > 0);
    const headers = ['measure', 'goal', ...kinds.map((k) => (k === 'pglite' ? 'PGlite' : 'PostgreSQL'))];
    const table = rows.map((x) => [x.measure, x.goal, ...kinds.map((k) => x.values[k] ?? '')]);
    console.log(
      [
        '',
        `Messaging engine benchmark (node ${process.version}, simulator at zero latency, zero pace${SMOKE ? '; BENCH_SMOKE: small sizes, figures not comparable' : ''})`,
        ...markdownTable(headers, table),
        '',
      ].join('\n'),
    );
  }
  if (baileys.length > 0) {
    const bh = ['measure', 'goal', 'rc14 through the emulator (one process each, no database)'];
    console.log(
      [
        ...markdownTable(
          bh,
          baileys.map((b) => [b.measure, b.goal, b.value]),
        ),
        '',
      ].join('\n'),
    );
  }
  // One Cloud API number's throughput, the same on either database.
  if (wants('cloud')) {
    const { cloudThroughputTable } = await import('./cloud-throughput.ts');
    try {
      console.log(`${await cloudThroughputTable()}\n`);
    } catch (err) {
      errors.push(`Cloud API account: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (errors.length > 0) {
    console.error(`\nbench: ${errors.length} row(s) failed:\n${errors.map((e) => `  - ${e}`).join('\n')}`);
    process.exit(1);
  }
}

await main();
process.exit(0);
