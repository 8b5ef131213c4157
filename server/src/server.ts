import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import { ensureAdmin } from './auth/service.ts';
import { writePidFile } from './backup/pid-file.ts';
import type { Config } from './config.ts';
import type { AppContext, NodeEvents } from './context.ts';
import { openDatabase } from './db/client.ts';
import { encryptPlainAuthState, resolveSecretKey } from './db/secrets.ts';
import { type Engine, startEngine } from './engine.ts';
import { buildApp } from './http/app.ts';
import type { App } from './http/types.ts';
import { createLogger } from './logger.ts';
import { createMetrics } from './metrics/metrics.ts';
import { WebhookDeliverer } from './webhooks/deliverer.ts';

export type RunningServer = {
  ctx: AppContext;
  app: App;
  engine: Engine | null;
  url: string;
  admin: { username: string; password: string; generated: boolean } | null;
  stop(): Promise<void>;
};

/** Opens the database, makes sure an admin exists, starts the engine and listens. */
export async function startServer(startConfig: Config): Promise<RunningServer> {
  // Files this process creates (database, key, backups) are for its user alone.
  process.umask(0o077);
  const config: Config = { ...startConfig, secretKey: resolveSecretKey(startConfig) };
  const log = createLogger(config);
  // Before the database opens: a backup or restore started meanwhile sees the server.
  const removePidFile = config.databaseUrl ? () => {} : writePidFile(config.dataDir);
  const database = await openDatabase(config);
  if (config.secretKey) {
    const encrypted = await encryptPlainAuthState(database.db, config.secretKey);
    if (encrypted > 0) log.info({ rows: encrypted }, 'encrypted the stored WhatsApp auth state');
  }
  const admin = await ensureAdmin(database.db, config);
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    nodeId: `${os.hostname()}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`,
    log,
    events: new EventEmitter<NodeEvents>(),
    metrics: createMetrics(database.db),
  };
  const app = await buildApp(ctx);
  const engine = config.role === 'api' ? null : await startEngine(ctx);
  const webhooks = config.role === 'api' ? null : new WebhookDeliverer(ctx).start();
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://localhost:${port}`;
  let stopped = false;
  return {
    ctx,
    app,
    engine,
    url,
    admin,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await webhooks?.stop();
      await engine?.stop();
      await app.close();
      await database.close();
      removePidFile();
    },
  };
}
