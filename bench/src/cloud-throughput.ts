/**
 * One Cloud API account sending to 10,000 numbers against the fake Graph API answering in 50 ms
 * (a bench row): the product's CloudTransport (its Graph client over real HTTP, its
 * throughput limiter and tier counter) driven by as many concurrent senders as its capability
 * says, as the engine's lanes do (a linked phone sends one at a time; a Cloud number does not).
 * Prints the achieved rate and the busiest 1 s window, which must never exceed 80.
 *
 *   npx tsx bench/src/cloud-throughput.ts        (or BENCH_ONLY=cloud npm run bench)
 *
 * BENCH_CLOUD_SENDS (10000), BENCH_CLOUD_LATENCY_MS (50), BENCH_CLOUD_SENDERS (8),
 * BENCH_CLOUD_RATE (80) change the run. 10,000 sends at 80 a second take about 125 s.
 */
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { createGraphClient } from '../../server/src/transport/cloud/graph-client.ts';
import {
  createThroughputLimiter,
  maxInWindow,
  type ThroughputLimiter,
} from '../../server/src/transport/cloud/throughput-limiter.ts';
import { CloudTransport } from '../../server/src/transport/cloud/transport.ts';
import { startFakeGraphApi } from '../../server/test/fakes/graph-api.ts';
import { size } from './setup.ts';

const SENDS = Number(process.env.BENCH_CLOUD_SENDS ?? size(10_000, 200));
const LATENCY_MS = Number(process.env.BENCH_CLOUD_LATENCY_MS ?? 50);
const RATE = Number(process.env.BENCH_CLOUD_RATE ?? 80);

/**
 * When each send passes `limiter` from now on (its own clock, performance.now()): the product's
 * pace, before whatever delays a request between that and its arrival at the fake Graph API.
 */
export function startsAt(limiter: ThroughputLimiter): number[] {
  const starts: number[] = [];
  const acquire = limiter.acquire;
  limiter.acquire = async () => {
    const at = await acquire();
    starts.push(at);
    return at;
  };
  return starts;
}

/** The bench's table (markdown). */
export async function cloudThroughputTable(): Promise<string> {
  const fake = await startFakeGraphApi({
    latencyMs: LATENCY_MS,
    // 10,000 numbers in a day: a number on the 100K tier (Messaging limits page).
    phone: { messaging_limit_tier: 'TIER_100K' },
    templates: [
      {
        name: 'diwali_offer',
        language: 'en',
        category: 'MARKETING',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'Hello {{1}}, 20% off this week.' }],
      },
    ],
  });
  const limiter = createThroughputLimiter({ perSecond: RATE });
  const starts = startsAt(limiter);
  const transport = new CloudTransport(
    { accountId: 'bench', phoneNumber: '919800015838' },
    {
      client: createGraphClient({ baseUrl: fake.baseUrl, accessToken: fake.accessToken }),
      phoneNumberId: fake.phoneNumberId,
      log: pino({ level: 'silent' }),
      limiter,
      tier: 'TIER_100K',
      inServiceWindow: async () => false,
      onPhoneInfo: async () => {},
    },
  );
  await transport.connect();
  const senders = transport.capabilities.concurrentSends;
  const latencies: number[] = [];
  let failures = 0;
  let queued = SENDS;
  const began = performance.now();
  async function sender() {
    while (queued > 0) {
      const n = SENDS - queued--;
      const t = performance.now();
      try {
        await transport.send(`9190${String(n).padStart(8, '0')}@s.whatsapp.net`, {
          kind: 'template',
          name: 'diwali_offer',
          language: 'en',
          parameters: [`Customer ${n}`],
        });
      } catch {
        failures++;
      }
      latencies.push(performance.now() - t);
    }
  }
  await Promise.all(Array.from({ length: senders }, sender));
  const elapsed = (performance.now() - began) / 1000;
  await transport.close();
  await fake.close();

  // When each request arrived at the fake Graph API: the rate Meta would measure.
  const arrivals = fake.sends.map((s) => s.at).sort((a, b) => a - b);
  starts.sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
  const rows: [string, string, string][] = [
    ['sends', `${SENDS} (${senders} concurrent sends, fake answers in ${LATENCY_MS} ms)`, ''],
    [
      'achieved rate (arrivals at the fake)',
      `${((arrivals.length - 1) / ((arrivals.at(-1)! - arrivals[0]!) / 1000)).toFixed(2)}/s`,
      `${RATE}/s`,
    ],
    ['busiest 1 s window (the limiter’s starts)', String(maxInWindow(starts)), `≤ ${RATE}`],
    [
      'busiest 1 s window (arrivals at the fake)',
      String(maxInWindow(arrivals)),
      `≤ ${RATE} (± network jitter)`,
    ],
    ['wall time', `${elapsed.toFixed(1)} s`, `≈ ${(SENDS / RATE).toFixed(1)} s`],
    ['send latency p50 / p95 (with the wait for a slot)', `${pct(0.5)} / ${pct(0.95)} ms`, ''],
    ['failed sends', String(failures), '0'],
  ];
  const widths = [0, 1, 2].map((i) =>
    Math.max(...rows.map((r) => r[i]!.length), ['measure', 'value', 'goal'][i]!.length),
  );
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    `Cloud API account: one number sending templates (node ${process.version})`,
    line(['measure', 'value', 'goal']),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await cloudThroughputTable());
}
