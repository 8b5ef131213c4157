/**
 * The webhook row's load generator, run as its own process (`cloud-webhook.ts` forks it) so that
 * making and timing the requests takes none of the server's CPU: the figure is the node's own.
 * It posts each body with its signature to the url at the offered rate, whatever the answers'
 * times (an open loop: a slow answer does not slow the offer), and sends back each POST's time to
 * answer, how many were not answered 200, the time from the first POST to the last answer, and
 * the CPU seconds this process spent on it (what the load cost, apart from the node's).
 */
import { Agent, request } from 'undici';

export type WebhookLoad = { url: string; bodies: string[]; signatures: string[]; rate: number };
export type WebhookLoadResult = { times: number[]; refused: number; elapsedMs: number; cpuS: number };

async function offer({ url, bodies, signatures, rate }: WebhookLoad): Promise<WebhookLoadResult> {
  const cpu = process.cpuUsage();
  const agent = new Agent({ connections: 64, pipelining: 1 });
  const times: number[] = [];
  let refused = 0;
  const post = async (i: number) => {
    const started = performance.now();
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signatures[i]! },
      body: bodies[i]!,
    });
    await res.body.text();
    if (res.statusCode !== 200) refused++;
    times.push(performance.now() - started);
  };
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(post(i));
  }
  await Promise.all(inFlight);
  const elapsedMs = performance.now() - started;
  await agent.close();
  const used = process.cpuUsage(cpu);
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
