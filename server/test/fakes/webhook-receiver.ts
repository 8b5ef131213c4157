import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect } from 'vitest';
import { waGroups } from '../../src/db/schema.ts';
import { appWithEngine, bearer, buildUser, type DbKind, late, loginToken } from '../helpers.ts';
import { waitFor } from '../wait.ts';
import { connectedAccount } from './accounts.ts';

export type ReceivedCall = {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON a receiver parses, read field by field by the tests
  json: any;
};

/** What the receiver does with one call: answer with a status (and headers), or never answer. */
export type Reply = { status: number; headers?: Record<string, string> } | 'hang';

/**
 * A real HTTP receiver on 127.0.0.1, as a customer's system would run one: it records every
 * call and answers by a script (then 200 once the script is used up).
 */
export async function startReceiver(script: Reply[] = []) {
  const calls: ReceivedCall[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      calls.push({ path: req.url ?? '', headers: req.headers, body, json });
      const reply = script.shift() ?? { status: 200 };
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status, reply.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    script,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * For a describe block: a receiver, and the app with the engine whose webhook deliverer polls every
 * 50 ms (private addresses allowed: the receiver is on 127.0.0.1), 6 groups on each simulated account.
 */
export function webhookEngine(kind: DbKind) {
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  const { t } = appWithEngine(
    kind,
    { ALLOW_PRIVATE_WEBHOOKS: 'true', SIMULATOR_SEND_LATENCY_MS: '5', SIMULATOR_GROUPS: '6' },
    undefined,
    { webhooks: { pollMs: 50, retryBaseMs: 100 } },
  );
  const receiverNow = late(() => receiver!);

  /**
   * A user with 50 credits whose webhook sends `events` to the receiver, and their account on
   * `phone`, linked, its 6 groups cached.
   */
  async function subscriber(events: string[], phone: string) {
    const user = await buildUser(t, { credits: 50 });
    const token = await loginToken(t.app, user.username);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: bearer(token),
      payload: { url: `${receiverNow.url}/events`, events },
    });
    expect(created.statusCode, created.body).toBe(200);
    const webhook = created.json().webhook as { id: string; secret: string };
    const accountId = await connectedAccount(t, token, phone);
    const groups = await waitFor('groups cached', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
      return rows.length === 6 ? rows : null;
    });
    return { user, token, webhook, accountId, groups };
  }
  return { t, receiver: receiverNow, subscriber };
}

/** What a receiver does to trust a call: recompute the signature over "<timestamp>.<body>". */
export function verifySignature(secret: string, call: ReceivedCall): boolean {
  const timestamp = String(call.headers['x-webhook-timestamp']);
  const expected = `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${call.body}`).digest('hex')}`;
  const given = String(call.headers['x-webhook-signature']);
  return (
    given.length === expected.length && crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected))
  );
}
