/**
 * A Cloud number's status webhooks at full speed (a bench row): a number on Meta's HIGH throughput
 * sends up to 1,000 messages a second, and each brings back about three signed statuses (sent,
 * delivered, read: the status webhook reference), so the webhook route of one node must take
 * 3,000 events a second. The product's own HTTP server (a real port, its signature check, its one
 * door for outcomes) is sent one status per POST, as Meta's fake (server/src/transport/simulator)
 * signs them, from a process of its own (`webhook-load.ts`) paced at the offered rate whatever
 * the answers' times (an open loop: a slow answer does not slow the offer), after one second of
 * the same traffic about other messages, untimed (as a node that has served webhooks before, with
 * its connections open and its code compiled). Prints each timed POST's time to answer (p50, p99,
 * max) and how long after the last POST every status is in the database; then the CPU each event
 * cost, from the first timed POST until every status is applied: this process's (the node: its HTTP server, signature
 * check, parse and batches; the fake Graph API here only answers the connect), the PostgreSQL
 * backends' and the load generator's. On a machine of two cores or more the node runs on core 0
 * and the load generator on core 1 (PostgreSQL, a service of the machine, runs where it runs):
 * on a shared machine the rate moves with the others' load, the CPU an event costs far less.
 *
 *   BENCH_ONLY=webhook npm run bench        (BENCH_WEBHOOK_RATE, 3000 by default; BENCH_PIN=0 pins nothing)
 */
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { queryRows } from '../../server/src/db/client.ts';
import { acceptSend } from '../../server/src/messaging/accept/send.ts';
import {
  escapedUnicodeJson,
  messagesEnvelope,
  signature,
  statusesOf,
} from '../../server/src/transport/simulator/graph-api-payloads.ts';
import { startFakeGraphApi } from '../../server/test/fakes/graph-api.ts';
import {
  databaseCpuFrom,
  forkBenchProcess,
  perUnit,
  pinnedBeside,
  placement,
  statementsSent,
  withHighNumber,
} from './cloud-number.ts';
import { numbers, size } from './setup.ts';
import { tallyStatements } from './statement-tally.ts';
import type { WebhookLoad, WebhookLoadResult } from './webhook-load.ts';

const MESSAGES = size(10_000, 200);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 3000);
/** The messages whose statuses go first, untimed: a second's worth at the default rate. */
const WARM_MESSAGES = size(1_000, 20);

/**
 * The load, made in a process of its own (`webhook-load.ts`), on core `core` when there is one;
 * `measuring` is called when its timed part starts.
 */
function offerFromOwnProcess(
  load: WebhookLoad,
  core: string | null,
  measuring: () => void,
): Promise<WebhookLoadResult> {
  const child = forkBenchProcess(new URL('./webhook-load.ts', import.meta.url), core);
  return new Promise((resolve, reject) => {
    child.on('message', (m: WebhookLoadResult | { measuring: true }) => {
      if ('measuring' in m) measuring();
      else resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`the webhook load process exited with ${code}`)));
    child.send(load);
  });
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

export async function cloudWebhookRow(benchCtx: AppContext): Promise<string> {
  return withHighNumber(
    benchCtx,
    WARM_MESSAGES + MESSAGES,
    0,
    startFakeGraphApi,
    async ({ ctx, base, fake, user, sessionId: accountId }) => {
      // A job whose messages Meta took: each recipient sent under its own WAMID (what the
      // transport records from the send's answer), waiting for its statuses.
      const total = WARM_MESSAGES + MESSAGES;
      const to = numbers(total, 919_700_000_000);
      const accepted = await acceptSend(
        ctx,
        user,
        accountId,
        {
          chatIds: to,
          type: 'template',
          content: { name: 'order_update', language: 'en', parameters: ['A-1'] },
        },
        'individuals',
      );
      await ctx.db.execute(
        sql`UPDATE message_job_recipients SET status = 'sent', message_id = 'wamid.B' || id, sent_at = now(), attempts = 1
          WHERE job_id = ${accepted.jobId}`,
      );
      const ids = await queryRows<{ id: number; chat_id: string }>(
        ctx.db,
        sql`SELECT id::int AS id, chat_id FROM message_job_recipients WHERE job_id = ${accepted.jobId} ORDER BY id`,
      );
      const t0 = Math.floor(Date.now() / 1000);
      // Meta's order for each message (sent, delivered, read), the messages interleaved as a busy
      // number's statuses arrive: the warm-up's messages first, then the timed ones.
      const bodies: string[] = [];
      const perMessage = ids.map((r) =>
        statusesOf(
          { id: `wamid.B${r.id}`, to: r.chat_id.replace(/\D/g, ''), category: 'utility' },
          null,
          t0,
          true,
        ),
      );
      for (const part of [perMessage.slice(0, WARM_MESSAGES), perMessage.slice(WARM_MESSAGES)])
        for (let step = 0; step < 3; step++)
          for (const statuses of part)
            bodies.push(
              escapedUnicodeJson(
                messagesEnvelope(
                  fake.wabaId,
                  { id: fake.phoneNumberId, display: '919800015838' },
                  { statuses: [statuses[step]] },
                ),
              ),
            );

      const url = `${base}/api/cloud/webhook/${accountId}`;
      const warmup = 3 * WARM_MESSAGES;
      const timed = bodies.length - warmup;
      let nodeCpu = process.cpuUsage();
      let databaseCpu: Promise<() => Promise<number | null>> | undefined;
      let tally: ReturnType<typeof tallyStatements> | undefined;
      let pinned = false;
      // The node on core 0, the load on core 1: each its own core (when the machine has two).
      const offer = await pinnedBeside((core) => {
        pinned = core !== null;
        return offerFromOwnProcess(
          { url, bodies, signatures: bodies.map((b) => signature(b, fake.appSecret)), rate: RATE, warmup },
          core,
          () => {
            nodeCpu = process.cpuUsage();
            databaseCpu = databaseCpuFrom(ctx);
            tally = tallyStatements();
          },
        );
      });
      const { times, refused, elapsedMs } = offer;
      const lastAnswer = performance.now();
      const offeredS = elapsedMs / 1000;
      // Every status applied: each recipient delivered and read.
      let applied = false;
      while (performance.now() - lastAnswer < 60_000) {
        const [row] = await queryRows<{ read: number; delivered: number }>(
          ctx.db,
          sql`SELECT count(read_at)::int AS read, count(delivered_at)::int AS delivered
            FROM message_job_recipients WHERE job_id = ${accepted.jobId}`,
        );
        if (row!.read === total && row!.delivered === total) {
          applied = true;
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      const settled = performance.now() - lastAnswer;
      const nodeUsed = process.cpuUsage(nodeCpu);
      const statements = tally!.stop();
      const databaseS = await (await databaseCpu!)();
      if (refused > 0) throw new Error(`${refused} of ${bodies.length} webhooks were not answered 200`);
      if (!applied) throw new Error('not every status was applied within 60 s of the last webhook');
      times.sort((a, b) => a - b);
      const ms = (v: number) => `${Math.round(v)} ms`;
      return (
        `${timed.toLocaleString('en-IN')} status webhooks offered at ${RATE.toLocaleString('en-IN')}/s ` +
        `(after ${warmup.toLocaleString('en-IN')} untimed), ` +
        `taken at ${Math.round(timed / offeredS).toLocaleString('en-IN')}/s: answer p50 ${ms(quantile(times, 0.5))}, ` +
        `p99 ${ms(quantile(times, 0.99))}, max ${ms(times.at(-1)!)}; all applied ${ms(settled)} after the last answer; ` +
        cpuPerEvent(timed, (nodeUsed.user + nodeUsed.system) / 1e6, databaseS, offer.cpuS, pinned) +
        // The bench's own polls for "all applied" are among them (one each 20 ms after the last answer).
        `; ${statementsSent(ctx, statements, timed, 'status', 3)}`
      );
    },
  );
}

/** The CPU an event cost the node, PostgreSQL and the load generator, and one core's ceiling at the node's cost. */
function cpuPerEvent(
  events: number,
  nodeS: number,
  databaseS: number | null,
  loadS: number,
  pinned: boolean,
): string {
  const node = perUnit(nodeS, events);
  const database = databaseS === null ? '' : `, PostgreSQL ${perUnit(databaseS, events).us} µs`;
  return (
    `node CPU per event: ${node.us} µs → one core's ceiling ≈ ${node.ceiling}/s${database}, ` +
    `load generator ${perUnit(loadS, events).us} µs` +
    placement('load', pinned, databaseS !== null)
  );
}
