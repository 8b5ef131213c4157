import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { WEBHOOK_PAYLOADS } from '@wa/contract';
import type { AppContext } from '../context.ts';
import { decryptValue, webhookSecretContext } from '../db/secrets.ts';
import { isPublicAddress, PRIVATE_ADDRESS_MESSAGE, publicOnlyLookup } from './address.ts';
import {
  type CallResult,
  type ClaimedCall,
  claimCall,
  pruneFinishedDeliveries,
  recordCall,
} from './repository.ts';
import { signature } from './signature.ts';

export type DelivererOptions = {
  /** Calls in flight at once on this node. */
  concurrency?: number;
  /** How often to look for due deliveries. */
  pollMs?: number;
  /** First retry after this long, doubling each time (at most an hour). */
  retryBaseMs?: number;
  /** A call that has not answered by then has failed. */
  timeoutMs?: number;
};

/**
 * What is wrong with the claimed payloads against contract/webhook-events.ts, or null. The
 * triggers that build most of them are SQL (server/drizzle 0006, 0021), out of the type checker's
 * sight: a payload that no longer matches is logged as an error, and still sent as stored (the
 * receiver loses no event over it).
 */
export function payloadProblem(call: ClaimedCall): string | null {
  const schema = WEBHOOK_PAYLOADS[call.event];
  for (const d of call.deliveries) {
    const parsed = schema.safeParse(d.data);
    if (!parsed.success)
      return `delivery ${d.id}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
  }
  return null;
}

/** The JSON body of one call: one event, or for message.status a batch of up to 100. */
function bodyOf(call: ClaimedCall): { id: string; body: string } {
  const first = call.deliveries[0]!;
  const id = `whd_${first.id}`;
  if (call.event === 'message.status') {
    const data = call.deliveries.map((d) => ({ id: `whd_${d.id}`, ...(d.data as object) }));
    return { id, body: JSON.stringify({ id, event: call.event, createdAt: first.createdAt, data }) };
  }
  return {
    id,
    body: JSON.stringify({ id, event: call.event, createdAt: first.createdAt, data: first.data }),
  };
}

/**
 * POSTs once: no redirect is followed (a 3xx is a failure), only a 2xx counts, and the whole
 * call has `timeoutMs` to answer.
 */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  allowPrivate: boolean,
): Promise<{ statusCode: number }> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // Node does not look up an IP literal, so the public-only lookup never sees it: check here.
    if (!allowPrivate && net.isIP(host) && !isPublicAddress(host)) {
      reject(new Error(PRIVATE_ADDRESS_MESSAGE));
      return;
    }
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      lookup: allowPrivate ? undefined : publicOnlyLookup,
      agent: false,
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ statusCode: response.statusCode ?? 0 });
      });
      response.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end(body);
  });
}

/** Makes one call for claimed deliveries; never throws. */
export async function callWebhook(
  call: ClaimedCall,
  options: { timeoutMs: number; allowPrivate: boolean; secretKey: Buffer | undefined },
): Promise<CallResult> {
  const { id, body } = bodyOf(call);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  try {
    const secret = decryptValue(
      options.secretKey,
      webhookSecretContext(call.webhook.id),
      call.webhook.secret,
    );
    const { statusCode } = await post(
      new URL(call.webhook.url),
      {
        'content-type': 'application/json',
        'user-agent': 'wa-bulk-console-webhooks',
        'x-webhook-id': id,
        'x-webhook-timestamp': String(timestamp),
        'x-webhook-signature': signature(secret, timestamp, body),
      },
      body,
      options.timeoutMs,
      options.allowPrivate,
    );
    const ok = statusCode >= 200 && statusCode < 300;
    const error = ok
      ? null
      : statusCode >= 300 && statusCode < 400
        ? `HTTP ${statusCode}: redirects are not followed`
        : `HTTP ${statusCode}`;
    return { ok, statusCode, error, durationMs: performance.now() - started };
  } catch (err) {
    return {
      ok: false,
      statusCode: null,
      error: err instanceof Error ? err.message : String(err),
      durationMs: performance.now() - started,
    };
  }
}

/**
 * This node's webhook sender: claims due deliveries from the database (any node may send any
 * of them), calls, records the outcome. Stopping waits for the calls in flight.
 */
export class WebhookDeliverer {
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly retryBaseMs: number;
  private readonly timeoutMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private pumping = false;
  private stopped = false;

  constructor(
    private readonly ctx: AppContext,
    options: DelivererOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 4;
    this.pollMs = options.pollMs ?? 1000;
    this.retryBaseMs = options.retryBaseMs ?? ctx.config.webhookRetryBaseMs;
    this.timeoutMs = options.timeoutMs ?? ctx.config.webhookTimeoutMs;
  }

  start(): this {
    this.timer = setInterval(() => void this.pump(), this.pollMs);
    this.pruneTimer = setInterval(() => void this.prune(), 3_600_000);
    void this.pump();
    return this;
  }

  /** Deletes delivered and given-up deliveries older than a week, in slices. */
  async prune(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const n = await pruneFinishedDeliveries(this.ctx.db);
        total += n;
        if (n < 5000 || this.stopped) return total;
      }
    } catch (err) {
      this.ctx.log.warn({ err }, 'webhook deliveries: pruning failed');
      return total;
    }
  }

  /** Claims and starts calls until the node's share is in flight or nothing is due. */
  async pump(): Promise<void> {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    try {
      while (!this.stopped && this.inFlight.size < this.concurrency) {
        // The lease outlasts the call's timeout: nobody else takes the rows while it runs.
        const call = await claimCall(this.ctx.db, this.timeoutMs * 3);
        if (!call) break;
        const running = this.deliver(call).finally(() => {
          this.inFlight.delete(running);
          if (!this.stopped) void this.pump();
        });
        this.inFlight.add(running);
      }
    } catch (err) {
      this.ctx.log.warn({ err }, 'webhook deliveries: claim failed');
    } finally {
      this.pumping = false;
    }
  }

  private async deliver(call: ClaimedCall): Promise<void> {
    const problem = payloadProblem(call);
    if (problem)
      this.ctx.log.error(
        { webhookId: call.webhook.id, event: call.event, problem },
        'webhook payload does not match contract/webhook-events.ts',
      );
    const result = await callWebhook(call, {
      timeoutMs: this.timeoutMs,
      allowPrivate: this.ctx.config.allowPrivateWebhooks,
      secretKey: this.ctx.config.secretKey,
    });
    try {
      const outcome = await recordCall(this.ctx.db, call, result, this.retryBaseMs);
      this.ctx.metrics.webhookDeliveries.inc({ result: outcome });
      if (!result.ok)
        this.ctx.log.info(
          { webhookId: call.webhook.id, event: call.event, error: result.error, outcome },
          'webhook call failed',
        );
    } catch (err) {
      // The rows stay claimed until their lease ends, then are sent again: at least once.
      this.ctx.log.warn(
        { err, webhookId: call.webhook.id },
        'webhook deliveries: recording the outcome failed',
      );
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await Promise.allSettled([...this.inFlight]);
  }
}
