import { sql } from 'drizzle-orm';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type Db, queryRows } from '../db/client.ts';

/**
 * This process's Prometheus metrics, in a registry of its own (never prom-client's global
 * one, so that tests and several apps in one process do not share counters).
 *
 * Counters and histograms count what this process did; the gauges are read from the database
 * when scraped, so every node reports the same totals for queued recipients and accounts.
 */
export interface Metrics {
  registry: Registry;
  /** Recipient outcomes recorded by this node's dispatcher: sent, failed. */
  messages: Counter<'outcome'>;
  /** Time the transport took to send one message. */
  sendDuration: Histogram;
  /** Webhook delivery attempts: delivered, failed (retried later), gave_up. */
  webhookDeliveries: Counter<'result'>;
  httpDuration: Histogram<'method' | 'route' | 'status_code'>;
}

const ACCOUNT_STATUSES = ['CONNECTED', 'PENDING', 'DISCONNECTED'] as const;

export function createMetrics(db: Db): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const messages = new Counter({
    name: 'wa_messages_total',
    help: 'Recipient outcomes recorded by this process, by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const sendDuration = new Histogram({
    name: 'wa_send_duration_seconds',
    help: 'Time the WhatsApp transport took to send one message',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: 'wa_webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this process, by result',
    labelNames: ['result'],
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request durations, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'wa_recipients_queued',
    help: 'Recipients waiting to be sent, over all nodes (read from the database)',
    registers: [registry],
    async collect() {
      const [row] = await queryRows<{ n: number }>(
        db,
        sql`SELECT count(*)::int AS n FROM message_job_recipients WHERE status = 'queued'`,
      );
      this.set(row?.n ?? 0);
    },
  });
  new Gauge({
    name: 'wa_sessions',
    help: 'WhatsApp sessions by status, over all nodes (read from the database)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const rows = await queryRows<{ status: string; n: number }>(
        db,
        sql`SELECT status, count(*)::int AS n FROM wa_sessions GROUP BY status`,
      );
      for (const status of ACCOUNT_STATUSES) {
        this.set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
      }
    },
  });
  new Gauge({
    name: 'wa_account_health',
    help: "Each account's health score (0-100) as its node last evaluated it (read from the database)",
    labelNames: ['session_id', 'state'],
    registers: [registry],
    async collect() {
      const rows = await queryRows<{ session_id: string; state: string; score: number }>(
        db,
        sql`SELECT session_id, state, score FROM account_health`,
      );
      // Accounts deleted or changed state since the last scrape lose their old series.
      this.reset();
      for (const r of rows) this.set({ session_id: r.session_id, state: r.state }, r.score);
    },
  });
  return { registry, messages, sendDuration, webhookDeliveries, httpDuration };
}
