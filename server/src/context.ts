import type { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { Metrics } from './metrics/metrics.ts';

/**
 * In-process signals between the HTTP layer and the engine of this node. Other nodes learn
 * the same through the database (and LISTEN/NOTIFY on PostgreSQL).
 */
export type NodeEvents = {
  /** A job was accepted or re-queued for this session: its dispatcher should wake. */
  'recipients-queued': [sessionId: string];
  /** A session's row changed in a way the runner must act on (created, restart, terminate). */
  'session-changed': [sessionId: string];
};

export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  /** This process's id: the owner written in session and recipient leases. */
  nodeId: string;
  log: FastifyBaseLogger;
  events: EventEmitter<NodeEvents>;
  /** This process's Prometheus registry and the counters the engine and webhooks feed. */
  metrics: Metrics;
}
