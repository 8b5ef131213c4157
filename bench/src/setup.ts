/** What the bench parts share: the product's config for a bench, its databases, users, linked sessions and number formats. */

import crypto from 'node:crypto';
import { loadConfig } from '../../server/src/config.ts';
import { type AppContext, createContext } from '../../server/src/context.ts';
import { type Database, openPglite, openPostgres } from '../../server/src/db/client.ts';
import { waAuthState, waSessions } from '../../server/src/db/schema.ts';
import { createScratchDatabase } from '../../server/src/db/scratch.ts';
import { createUser } from '../../server/src/users/service.ts';

export function config() {
  return loadConfig({
    LOG_LEVEL: 'silent',
    WA_PROVIDER: 'simulator',
    SIMULATOR_SEND_LATENCY_MS: '0',
    SIMULATOR_GROUPS: '3',
    SEND_DELAY_MIN_MS: '0',
    SEND_DELAY_MAX_MS: '0',
    WEB_DIST_DIR: '/nonexistent-web-dist',
  });
}

export async function openBenchDatabase(kind: 'pglite' | 'postgres'): Promise<Database> {
  if (kind === 'pglite') return openPglite(undefined);
  const scratch = await createScratchDatabase(process.env.BENCH_DATABASE_URL!, 'bench');
  // The server's own pool size unless BENCH_POOL says otherwise (one connection per session helps).
  const database = await openPostgres(
    scratch.url,
    process.env.BENCH_POOL ? { max: Number(process.env.BENCH_POOL) } : {},
  );
  return {
    ...database,
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

export function context(database: Database): AppContext {
  return createContext(config(), database, 'bench');
}

export async function benchUser(ctx: AppContext, credits: number) {
  return createUser(ctx.db, {
    username: `bench_${crypto.randomBytes(4).toString('hex')}`,
    password: 'bench-password',
    name: 'Bench',
    role: 'USER',
    credits,
    isBulkMessagingEnabled: true,
    isMultisessionSupported: true,
    managedBy: null,
  });
}

/** A session the way the sessions service stores a linked one: the simulator reconnects it from its credentials. */
export async function linkedSession(ctx: AppContext, userId: string, i: number): Promise<string> {
  const phone = `9190${String(i).padStart(8, '0')}`;
  const sessionId = `${phone}_${crypto.randomBytes(6).toString('hex')}`;
  await ctx.db.insert(waSessions).values({
    id: crypto.randomUUID(),
    sessionId,
    userId,
    phoneNumber: phone,
    sessionName: `Bench ${i}`,
    hasCredentials: true,
  });
  await ctx.db.insert(waAuthState).values({
    sessionId,
    key: 'creds',
    value: JSON.stringify({ me: { id: `${phone}:1@s.whatsapp.net` }, linkedAt: new Date().toISOString() }),
  });
  return sessionId;
}

export const numbers = (n: number, start: number) => Array.from({ length: n }, (_, i) => String(start + i));
export const fmtS = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
export const fmtRate = (n: number) => `${Math.round(n).toLocaleString('en-IN')}/s`;
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
