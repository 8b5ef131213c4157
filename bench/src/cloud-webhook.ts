/**
 * A Cloud number's status webhooks at full speed (a bench row): a number on Meta's HIGH throughput
 * sends up to 1,000 messages a second, and each brings back about three signed statuses (sent,
 * delivered, read: the status webhook reference), so the webhook route of one node must take
 * 3,000 events a second. The product's own HTTP server (a real port, its signature check, its one
 * door for outcomes) is sent one status per POST, as Meta's fake (server/src/transport/simulator)
 * signs them, from a process of its own (`webhook-load.ts`) paced at the offered rate whatever
 * the answers' times (an open loop: a slow answer does not slow the offer). Prints each POST's time to answer (p50, p99, max) and how long after
 * the last POST every status is in the database.
 *
 *   BENCH_ONLY=webhook npm run bench        (BENCH_WEBHOOK_RATE, 3000 by default)
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
import { withHighNumber } from './cloud-number.ts';
import { numbers, size } from './setup.ts';
import type { WebhookLoad, WebhookLoadResult } from './webhook-load.ts';

const MESSAGES = size(10_000, 200);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 3000);

/** The load, made in a process of its own (`webhook-load.ts`). */
function offerFromOwnProcess(load: WebhookLoad): Promise<WebhookLoadResult> {
  const child = fork(fileURLToPath(new URL('./webhook-load.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
  });
  return new Promise((resolve, reject) => {
    child.once('message', (result) => resolve(result as WebhookLoadResult));
    child.once('exit', (code) => reject(new Error(`the webhook load process exited with ${code}`)));
    child.send(load);
  });
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

export async function cloudWebhookRow(benchCtx: AppContext): Promise<string> {
  return withHighNumber(benchCtx, MESSAGES, 0, async ({ ctx, base, fake, user, sessionId: accountId }) => {
    // A job whose messages Meta took: each recipient sent under its own WAMID (what the
    // transport records from the send's answer), waiting for its statuses.
    const to = numbers(MESSAGES, 919_700_000_000);
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
    // number's statuses arrive.
    const bodies: string[] = [];
    const perMessage = ids.map((r) =>
      statusesOf(
        { id: `wamid.B${r.id}`, to: r.chat_id.replace(/\D/g, ''), category: 'utility' },
        null,
        t0,
        true,
      ),
    );
    for (let step = 0; step < 3; step++)
      for (const statuses of perMessage)
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
    const { times, refused, elapsedMs } = await offerFromOwnProcess({
      url,
      bodies,
      signatures: bodies.map((b) => signature(b, fake.appSecret)),
      rate: RATE,
    });
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
      if (row!.read === MESSAGES && row!.delivered === MESSAGES) {
        applied = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const settled = performance.now() - lastAnswer;
    if (refused > 0) throw new Error(`${refused} of ${bodies.length} webhooks were not answered 200`);
    if (!applied) throw new Error('not every status was applied within 60 s of the last webhook');
    times.sort((a, b) => a - b);
    const ms = (v: number) => `${Math.round(v)} ms`;
    return (
      `${bodies.length.toLocaleString('en-IN')} status webhooks offered at ${RATE.toLocaleString('en-IN')}/s, ` +
      `taken at ${Math.round(bodies.length / offeredS).toLocaleString('en-IN')}/s: answer p50 ${ms(quantile(times, 0.5))}, ` +
      `p99 ${ms(quantile(times, 0.99))}, max ${ms(times.at(-1)!)}; all applied ${ms(settled)} after the last answer`
    );
  });
}
