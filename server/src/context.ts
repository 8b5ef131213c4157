import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import { createLogger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';

/**
 * In-process signals between the HTTP layer and the engine of this node. Other nodes learn
 * the same through the database (and LISTEN/NOTIFY on PostgreSQL).
 */
export type NodeEvents = {
  /** A job was accepted or re-queued for this account: its dispatcher should wake. */
  'recipients-queued': [accountId: string];
  /** An account's row changed in a way the runner must act on (created, restart, terminate). */
  'session-changed': [accountId: string];
};

export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  /** This process's id: the owner written in account and recipient leases. */
  nodeId: string;
  log: FastifyBaseLogger;
  events: EventEmitter<NodeEvents>;
  /** This process's Prometheus registry and the counters the engine and webhooks feed. */
  metrics: Metrics;
}

/**
 * This process's context on an open database: its logger, its in-process signals, its metrics
 * and its node id (`nodeName` names the node in leases; the host and pid by default). The server,
 * the tests and the bench build theirs here.
 */
export function createContext(config: Config, database: Database, nodeName?: string): AppContext {
  const name = nodeName ?? `${os.hostname()}-${process.pid}`;
  return {
    config,
    database,
    db: database.db,
    nodeId: `${name}-${crypto.randomBytes(3).toString('hex')}`,
    log: createLogger(config),
    events: new EventEmitter<NodeEvents>(),
    metrics: createMetrics(database.db),
  };
}
