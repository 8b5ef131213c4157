/**
 * The webhook row's load generator, run as its own process (`cloud-webhook.ts` forks it) so that
 * making and timing the requests takes none of the server's CPU: the figure is the node's own.
 * It posts each body with its signature to the url at the offered rate, whatever the answers'
 * times (an open loop: a slow answer does not slow the offer). The first `warmup` bodies go first,
 * untimed, until all are answered: they open the connections and warm both processes' code, as a
 * node that has served webhooks before has (it says `{ measuring: true }` when the rest starts).
 * It sends back each timed POST's time to answer, how many POSTs were not answered 200, the time
 * from the first timed POST to the last answer, and the CPU seconds this process spent on the
 * timed part (what the load cost, apart from the node's).
 */
import { Agent, request } from 'undici';

export type WebhookLoad = {
  url: string;
  bodies: string[];
  signatures: string[];
  rate: number;
  warmup: number;
};
export type WebhookLoadResult = { times: number[]; refused: number; elapsedMs: number; cpuS: number };

async function offer({ url, bodies, signatures, rate, warmup }: WebhookLoad): Promise<WebhookLoadResult> {
  const agent = new Agent({ connections: 64, pipelining: 1 });
  let refused = 0;
  const post = async (i: number, times: number[] | null) => {
    const started = performance.now();
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signatures[i]! },
      body: bodies[i]!,
    });
    await res.body.text();
    if (res.statusCode !== 200) refused++;
    times?.push(performance.now() - started);
  };
  /** Posts bodies `from` to `to` at the rate, and waits for every answer. */
  const paced = async (from: number, to: number, times: number[] | null) => {
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = from; i < to; i++) {
      const wait = started + ((i - from) * 1000) / rate - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(post(i, times));
    }
    await Promise.all(inFlight);
  };
  await paced(0, warmup, null);
  process.send!({ measuring: true });
  const cpu = process.cpuUsage();
  const times: number[] = [];
  const started = performance.now();
  await paced(warmup, bodies.length, times);
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await agent.close();
  return { times, refused, elapsedMs, cpuS: (used.user + used.system) / 1e6 };
}

process.once('message', (load: WebhookLoad) => {
  offer(load).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
