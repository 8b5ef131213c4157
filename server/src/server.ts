import { ensureAdmin } from './auth/service.ts';
import { writePidFile } from './backup/pid-file.ts';
import type { Config } from './config.ts';
import { type AppContext, createContext } from './context.ts';
import { openDatabase } from './db/client.ts';
import { encryptPlainSecrets, resolveSecretKey } from './db/secrets.ts';
import { type Engine, startEngine } from './engine.ts';
import { buildApp } from './http/app.ts';
import type { App } from './http/types.ts';

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
  // Before the database opens: a backup or restore started meanwhile sees the server.
  const removePidFile = config.databaseUrl ? () => {} : writePidFile(config.dataDir);
  const database = await openDatabase(config);
  const ctx = createContext(config, database);
  if (config.secretKey) {
    const encrypted = await encryptPlainSecrets(database.db, config.secretKey);
    if (encrypted > 0)
      ctx.log.info({ rows: encrypted }, 'encrypted the stored secrets (WhatsApp auth state, TOTP, webhooks)');
  }
  const admin = await ensureAdmin(database.db, config);
  const app = await buildApp(ctx);
  const engine = config.role === 'api' ? null : await startEngine(ctx);
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
      await engine?.stop();
      await app.close();
      await database.close();
      removePidFile();
    },
  };
}
