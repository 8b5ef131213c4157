/**
 * The fake Graph API (server/src/transport/simulator/graph-api.ts) as a process of its own, for the
 * HIGH number's row (`cloud-high.ts` forks it), so that answering the sends takes none of the
 * node's CPU. It answers each request of the parent in order: `start` starts the fake with the
 * given options and answers where it is and the number's credentials; `warm` sends the fake
 * `sends` copies of `body` from this process, 250 at a time, and answers when all are answered
 * (a new process's code is cold, Meta's never is); `mark` starts the timed part; `collect` answers the arrival time of each send since the mark (this process's
 * performance.now(), ms: only their differences mean anything to the parent) and the CPU seconds
 * this process spent since the mark (what answering cost, apart from the node's); `close` closes
 * the fake, answers, and exits.
 */
import { request } from 'undici';
import {
  type FakeGraphApi,
  type FakeGraphOptions,
  startFakeGraphApi,
} from '../../server/test/fakes/graph-api.ts';

export type GraphApiRequest =
  | { start: FakeGraphOptions }
  | { warm: { sends: number; body: unknown } }
  | { mark: true }
  | { collect: true }
  | { close: true };
export type GraphApiStarted = Pick<
  FakeGraphApi,
  'baseUrl' | 'phoneNumberId' | 'wabaId' | 'accessToken' | 'appSecret'
>;
export type GraphApiCollected = { arrivals: Float64Array; cpuS: number };

let fake: FakeGraphApi | undefined;
let mark = { sends: 0, cpu: process.cpuUsage() };

/** `sends` POSTs of `body` to the fake's messages endpoint, 250 at a time. */
async function warm(f: FakeGraphApi, sends: number, body: unknown): Promise<void> {
  const url = `${f.baseUrl}/${f.phoneNumberId}/messages`;
  const headers = { authorization: `Bearer ${f.accessToken}`, 'content-type': 'application/json' };
  const text = JSON.stringify(body);
  let left = sends;
  const post = async () => {
    while (left > 0) {
      left--;
      const res = await request(url, { method: 'POST', headers, body: text });
      const answered = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`warming: HTTP ${res.statusCode} ${answered}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(250, sends) }, post));
}

async function answer(asked: GraphApiRequest): Promise<unknown> {
  if ('start' in asked) {
    fake = await startFakeGraphApi(asked.start);
    const { baseUrl, phoneNumberId, wabaId, accessToken, appSecret } = fake;
    return { baseUrl, phoneNumberId, wabaId, accessToken, appSecret } satisfies GraphApiStarted;
  }
  if (!fake) throw new Error('the fake Graph API is not started');
  if ('warm' in asked) {
    await warm(fake, asked.warm.sends, asked.warm.body);
    return { warmed: true };
  }
  if ('mark' in asked) {
    mark = { sends: fake.sends.length, cpu: process.cpuUsage() };
    return { marked: true };
  }
  if ('collect' in asked) {
    const used = process.cpuUsage(mark.cpu);
    const sends = fake.sends.slice(mark.sends);
    return {
      arrivals: Float64Array.from(sends, (s) => s.at),
      cpuS: (used.user + used.system) / 1e6,
    } satisfies GraphApiCollected;
  }
  await fake.close();
  return { closed: true };
}

// Nothing is left running when the bench ends without a `close` (an error, a kill).
process.once('disconnect', () => process.exit(0));
// One request at a time: the parent waits for each answer before it asks again.
process.on('message', (asked: GraphApiRequest) => {
  answer(asked).then(
    (reply) => process.send!(reply, () => ('close' in asked ? process.exit(0) : undefined)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
