/**
 * A Cloud number on Meta's HIGH throughput sending through the product's engine (a bench row):
 * Meta serves up to 1,000 messages a second to such a number (the Throughput page), so its
 * transport is paced at 1,000 a second and never above. The whole path runs: the connect route
 * reads the number's throughput level from the fake Graph API (answering each send in
 * BENCH_CLOUD_LATENCY_MS, 50 by default), a template job is accepted, and the engine's lanes
 * claim, send and record each recipient. The fake Graph API runs in a process of its own
 * (`graph-api-process.ts`), so that its answers take none of the node's CPU, and first takes
 * 5,000 sends of its own, untimed (a new process's code is cold, Meta's never is; the node's is
 * left cold); on a machine of two cores or more the node runs on core 0 and the fake on core 1
 * (PostgreSQL, a service of the machine, runs where it runs). Prints the rate Meta would see (arrivals at the fake), the busiest
 * 1 s window of arrivals (and of the sends' starts at the number's limiter), and how many
 * recipients were not sent; then the CPU each message cost from the moment they were made due
 * until every one had its outcome: this process's (the node: its engine, transport and Graph
 * client), the PostgreSQL backends' and the fake Graph API's (its answers).
 *
 *   BENCH_ONLY=cloudhigh npm run bench        (BENCH_CLOUD_SENDS, 20,000 by default; BENCH_PIN=0 pins nothing)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../server/src/context.ts';
import { queryRows } from '../../server/src/db/client.ts';
import { startEngine } from '../../server/src/engine.ts';
import { acceptSend } from '../../server/src/messaging/accept/send.ts';
import { templateMessageBody } from '../../server/src/transport/cloud/messages.ts';
import { maxInWindow, type ThroughputLimiter } from '../../server/src/transport/cloud/throughput-limiter.ts';
import {
  databaseCpuFrom,
  type GraphApiProcess,
  type HighNumber,
  perUnit,
  pinnedBeside,
  placement,
  startGraphApiProcess,
  statementsSent,
  withHighNumber,
} from './cloud-number.ts';
import { startsAt } from './cloud-throughput.ts';
import { fmtRate, numbers, size } from './setup.ts';
import { tallyStatements } from './statement-tally.ts';

const MESSAGES = Number(process.env.BENCH_CLOUD_SENDS ?? size(20_000, 300));
const LATENCY_MS = Number(process.env.BENCH_CLOUD_LATENCY_MS ?? 50);
/** The sends the fake takes before the timed part, from its own process (about a second's worth at 50 ms). */
const WARM_SENDS = size(5_000, 200);
const TEMPLATE = { name: 'order_update', language: 'en', parameters: ['A-1'] };

export async function cloudHighRow(benchCtx: AppContext): Promise<string> {
  // The node on core 0, the fake Graph API on core 1: each its own core (when the machine has two).
  return pinnedBeside((core) =>
    withHighNumber(
      benchCtx,
      MESSAGES,
      LATENCY_MS,
      (options) => startGraphApiProcess(options, core),
      (number) => sendAll(number, core),
    ),
  );
}

/** The row itself: the number connected, the fake in its own process (on `core` when pinned). */
async function sendAll(
  { ctx, fake, user, sessionId: accountId }: HighNumber<GraphApiProcess>,
  core: string | null,
): Promise<string> {
  const engine = await startEngine(ctx);
  try {
    const until = Date.now() + 60_000;
    while (!engine.runtime.transportFor(accountId)) {
      if (Date.now() > until) throw new Error('the Cloud number did not connect within 60 s');
      await sleep(50);
    }
    // A CloudTransport's own limiter, private to it: the bench reaches in to watch it.
    const { limiter } = engine.runtime.transportFor(accountId) as unknown as {
      limiter: ThroughputLimiter;
    };
    const starts = startsAt(limiter);
    // Accepted for later, then made due at one instant, so that the rate measures sending only
    // (as the dispatch row does).
    const accepted = await acceptSend(
      ctx,
      user,
      accountId,
      {
        chatIds: numbers(MESSAGES, 919_600_000_000),
        type: 'template',
        content: TEMPLATE,
        scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
      },
      'individuals',
    );
    // The fake's process is new and its code cold, Meta's never is: it first takes sends of its
    // own, untimed (the node's code is as cold as before: its first sends are the row's).
    await fake.warm(
      WARM_SENDS,
      templateMessageBody('919400000000', {
        name: TEMPLATE.name,
        language: TEMPLATE.language,
        bodyParameters: TEMPLATE.parameters,
      }),
    );
    await fake.mark();
    const nodeCpu = process.cpuUsage();
    const databaseCpu = await databaseCpuFrom(ctx);
    const tally = tallyStatements();
    await ctx.db.execute(
      sql`UPDATE message_job_recipients SET due_at = now() + interval '2 seconds' WHERE job_id = ${accepted.jobId}`,
    );
    let left = MESSAGES;
    const deadline = Date.now() + 600_000;
    while (left > 0 && Date.now() < deadline) {
      await sleep(200);
      const [row] = await queryRows<{ left: number }>(
        ctx.db,
        sql`SELECT count(*)::int AS left FROM message_job_recipients
            WHERE job_id = ${accepted.jobId} AND status NOT IN ('sent', 'failed')`,
      );
      left = row!.left;
    }
    const nodeUsed = process.cpuUsage(nodeCpu);
    const databaseS = await databaseCpu();
    const statements = tally.stop();
    const [failed] = await queryRows<{ n: number }>(
      ctx.db,
      sql`SELECT count(*)::int AS n FROM message_job_recipients WHERE job_id = ${accepted.jobId} AND status = 'failed'`,
    );
    const collected = await fake.collect();
    const arrivals = Array.from(collected.arrivals).sort((a, b) => a - b);
    if (arrivals.length < 2) throw new Error(`only ${arrivals.length} sends reached the fake Graph API`);
    const seconds = (arrivals.at(-1)! - arrivals[0]!) / 1000;
    // From the update that makes them due 2 s later (the engine's polls meanwhile, and the
    // bench's own count every 200 ms, are in it: a few ms against seconds of sending).
    const node = perUnit((nodeUsed.user + nodeUsed.system) / 1e6, MESSAGES);
    const database = databaseS === null ? '' : `, PostgreSQL ${perUnit(databaseS, MESSAGES).us} µs`;
    return (
      `${MESSAGES.toLocaleString('en-IN')} templates, Meta answering in ${LATENCY_MS} ms: ` +
      `${fmtRate((arrivals.length - 1) / seconds)} at Meta, busiest second ${maxInWindow(arrivals)} ` +
      `(${maxInWindow(starts.sort((a, b) => a - b))} at the limiter); ` +
      `${left} not sent, ${failed!.n} failed; node CPU per message (engine, transport and Graph client; ` +
      `the fake Graph API answers in a process of its own): ` +
      `${node.us} µs → one core's ceiling ≈ ${node.ceiling}/s${database}, ` +
      `fake Graph API ${perUnit(collected.cpuS, MESSAGES).us} µs` +
      `${placement('fake', core !== null, databaseS !== null)}; ` +
      statementsSent(ctx, statements, MESSAGES, 'message', 4)
    );
  } finally {
    await engine.stop();
  }
}
