import crypto from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import {
  getMetricsFromStream,
  type PromHistogramData,
  type PromMetric,
  type PromMetrics,
} from 'prom2javascript';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { messageJobRecipients, messageJobs } from '../../src/db/schema.ts';
import { createLogger } from '../../src/logger.ts';
import { buildAccount } from '../fakes/messaging.ts';
import { buildUser, createTestApp, DB_KINDS, testAppFor, testConfig } from '../helpers.ts';

const METRICS_TOKEN = 'metrics-token-0123456789';

function family(families: PromMetrics, name: string): PromMetric {
  const f = families[name];
  if (!f) throw new Error(`no metric family ${name} in ${Object.keys(families).join(', ')}`);
  return f;
}

/** The value of the series of `name` whose labels include `labels`. */
function sampleValue(
  families: PromMetrics,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const series = family(families, name).data as { labels: Record<string, string>; value: number }[];
  return series.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe.each(DB_KINDS)('health, readiness and metrics on %s', (kind) => {
  const t = testAppFor(kind, { METRICS_TOKEN });

  it('answers /healthz and /readyz without a token', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('answers /readyz with 503 while a migration this code ships is missing from the database', async () => {
    const [newest] = await queryRows<{ id: number; hash: string; created_at: string }>(
      t.db,
      sql`SELECT id, hash, created_at::text FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`,
    );
    await t.db.execute(sql`DELETE FROM drizzle.__drizzle_migrations WHERE id = ${newest!.id}`);
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json().status).toBe('unavailable');
      expect(res.json().reason).toMatch(/^migrations not applied \(missing \d{4}_/);
    } finally {
      await t.db.execute(
        sql`INSERT INTO drizzle.__drizzle_migrations (id, hash, created_at) VALUES (${newest!.id}, ${newest!.hash}, ${newest!.created_at})`,
      );
    }
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('answers /readyz with 503 once the database is unreachable', async () => {
    const other = await createTestApp(kind);
    await other.ctx.database.close();
    const res = await other.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'unavailable', reason: 'database unreachable' });
    expect((await other.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    await other.app.close();
  });

  it('keeps /metrics behind METRICS_TOKEN when it is set, and on loopback only when it is not', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer wrong-token-0123456789' },
    });
    expect(wrong.statusCode).toBe(401);
    const open = await createTestApp(kind);
    try {
      const res = await open.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(200);
      // Without a token, only this machine is answered: not another address, not through a proxy.
      for (const from of [
        { remoteAddress: '203.0.113.9' },
        { remoteAddress: '::ffff:198.51.100.4' },
        { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9' } },
      ]) {
        const far = await open.app.inject({ method: 'GET', url: '/metrics', ...from });
        expect(far.statusCode, JSON.stringify(from)).toBe(403);
        expect(far.json()).toEqual({
          success: false,
          message: 'Metrics are served to this machine only: set METRICS_TOKEN to scrape them from elsewhere',
        });
      }
      expect(
        (await open.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '::1' })).statusCode,
      ).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('serves Prometheus text that a Prometheus parser reads: gauges from the database, counters, histograms, Node defaults', async () => {
    const user = await buildUser(t);
    await buildAccount(t, user.id, { status: 'CONNECTED' });
    await buildAccount(t, user.id, { status: 'CONNECTED' });
    await buildAccount(t, user.id, { status: 'PENDING' });
    const accountId = await buildAccount(t, user.id, { status: 'DISCONNECTED' });
    const jobId = crypto.randomUUID();
    await t.db.insert(messageJobs).values({
      id: jobId,
      userId: user.id,
      accountId,
      audience: 'individuals',
      messageType: 'text',
      content: 'Hello',
      status: 'pending',
      total: 5,
    });
    await t.db.insert(messageJobRecipients).values(
      ['queued', 'queued', 'queued', 'sent', 'failed'].map((status, i) => ({
        jobId,
        accountId,
        chatId: `9190000000${i}@s.whatsapp.net`,
        status: status as 'queued' | 'sent' | 'failed',
      })),
    );
    t.ctx.metrics.messages.inc({ outcome: 'sent' }, 2);
    t.ctx.metrics.webhookDeliveries.inc({ result: 'delivered' });
    await t.app.inject({ method: 'GET', url: '/healthz' });

    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = await getMetricsFromStream(Readable.from([res.body]));

    expect(family(families, 'wa_sessions').type).toBe('gauge');
    for (const [status, n] of Object.entries({ CONNECTED: 2, PENDING: 1, DISCONNECTED: 1 }))
      expect(sampleValue(families, 'wa_sessions', { status }), status).toBe(n);
    expect(sampleValue(families, 'wa_recipients_queued')).toBe(3);

    expect(family(families, 'wa_messages_total').type).toBe('counter');
    expect(sampleValue(families, 'wa_messages_total', { outcome: 'sent' })).toBe(2);
    expect(sampleValue(families, 'wa_webhook_deliveries_total', { result: 'delivered' })).toBe(1);
    expect(family(families, 'wa_send_duration_seconds').type).toBe('histogram');

    const http = family(families, 'http_request_duration_seconds');
    expect(http.type).toBe('histogram');
    const healthz = (http.data as PromHistogramData[]).find(
      (s) => s.labels.route === '/healthz' && s.labels.method === 'GET' && s.labels.status_code === '200',
    );
    expect(healthz?.count).toBeGreaterThanOrEqual(1);
    expect(healthz?.buckets['+Inf']).toBe(healthz?.count);

    // Node's defaults, from prom-client's collector
    expect(sampleValue(families, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(family(families, 'nodejs_heap_size_used_bytes').type).toBe('gauge');
  });
});

describe('logs for people and for collectors', () => {
  const capture = (isTTY: boolean) => {
    const stream = Object.assign(new PassThrough(), { isTTY });
    let out = '';
    stream.on('data', (d) => {
      out += String(d);
    });
    return { stream, text: () => out };
  };

  it('writes JSON lines when stdout is not a terminal', () => {
    const sink = capture(false);
    createLogger(testConfig({ LOG_LEVEL: 'info' }), sink.stream).info({ jobId: 'j1' }, 'job finished');
    const line = JSON.parse(sink.text().trim());
    expect(line).toMatchObject({ level: 30, msg: 'job finished', jobId: 'j1' });
  });

  it('writes coloured, readable lines when stdout is a terminal', () => {
    const sink = capture(true);
    createLogger(testConfig({ LOG_LEVEL: 'info' }), sink.stream).info({ jobId: 'j1' }, 'job finished');
    const text = sink.text();
    expect(text).toContain('job finished');
    expect(text).toContain('\u001b['); // ANSI colour
    expect(text).toMatch(/INFO/);
    expect(() => JSON.parse(text.trim())).toThrow();
  });

  it('lets LOG_FORMAT override the guess either way', () => {
    const json = capture(true);
    createLogger(testConfig({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }), json.stream).warn('careful');
    expect(JSON.parse(json.text().trim())).toMatchObject({ level: 40, msg: 'careful' });
    const pretty = capture(false);
    createLogger(testConfig({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }), pretty.stream).warn('careful');
    expect(pretty.text()).toMatch(/WARN.*careful/);
    expect(pretty.text()).not.toContain('\u001b[');
    expect(() => testConfig({ LOG_FORMAT: 'xml' })).toThrow(
      'Invalid LOG_FORMAT="xml": expected json or pretty',
    );
  });
});
