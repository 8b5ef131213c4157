import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { queryRows } from '../db/client.ts';

/** The tables an erasure changes (erasure.ts): their old row versions may still hold the number. */
export const ERASED_TABLES = [
  'contacts',
  'opt_outs',
  'person_addresses',
  'wa_lid_texts',
  'cloud_service_windows',
  'message_job_recipients',
  'wa_sent_messages',
  'message_job_series',
  'audit_log',
  'webhook_deliveries',
  'idempotency_keys',
  'wa_number_lookups',
  'wa_groups',
  'inbox_messages',
  'inbox_threads',
] as const;

/**
 * After erasures, what still holds the number on disk goes: each table an erasure changed is
 * rewritten (VACUUM FULL: new files without the dead row versions and index entries; the old
 * files are deleted), then the WAL is switched and checkpointed twice, so the segments that
 * recorded the number are removed (PGlite runs with wal_recycle=off). Erasures are claimed first
 * (compacted_at), so one node does it; one that fails is released for the next round. Runs when
 * the oldest erasure not yet compacted is `ERASURE_COMPACT_MS / 2` old, so several erasures share
 * one rewrite. Returns whether it compacted.
 */
export async function compactErasures(ctx: AppContext, now = new Date()): Promise<boolean> {
  const due = new Date(now.getTime() - ctx.config.erasureCompactMs / 2);
  const claimed = await queryRows<{ token: string; user_id: string }>(
    ctx.db,
    sql`UPDATE erasures SET compacted_at = now()
        WHERE compacted_at IS NULL
          AND EXISTS (SELECT 1 FROM erasures o WHERE o.compacted_at IS NULL AND o.at <= ${due.toISOString()}::timestamptz)
        RETURNING token, user_id`,
  );
  if (claimed.length === 0) return false;
  try {
    for (const table of ERASED_TABLES) await ctx.db.execute(sql.raw(`VACUUM FULL ${table}`));
    await moveWalPast(ctx);
    ctx.log.info({ erasures: claimed.length }, 'erased numbers compacted off disk');
    return true;
  } catch (err) {
    await ctx.db.execute(
      sql`UPDATE erasures SET compacted_at = NULL
          WHERE (user_id, token) IN (SELECT * FROM unnest(${sql.param(claimed.map((c) => c.user_id))}::text[], ${sql.param(claimed.map((c) => c.token))}::text[]))`,
    );
    throw err;
  }
}

/**
 * A new WAL segment and two checkpoints: the redo point moves past every record written before,
 * and the segments holding them are removed. On PostgreSQL these need a superuser or the
 * pg_checkpoint role; without them the server's own checkpoints do it in time (README).
 */
async function moveWalPast(ctx: AppContext): Promise<void> {
  try {
    await ctx.db.execute(sql`CHECKPOINT`);
    await ctx.db.execute(sql`SELECT pg_switch_wal()`);
    await ctx.db.execute(sql`CHECKPOINT`);
    await ctx.db.execute(sql`SELECT pg_switch_wal()`);
    await ctx.db.execute(sql`CHECKPOINT`);
  } catch (err) {
    if (ctx.database.kind === 'pglite') throw err;
    ctx.log.warn(
      { err },
      'CHECKPOINT after an erasure was refused: the WAL moves past it at the next checkpoint',
    );
  }
}

/** Checks for erasures to compact a quarter of ERASURE_COMPACT_MS apart (1 s to 1 h); returns the stop. */
export function startErasureCompaction(ctx: AppContext): () => void {
  const every = Math.min(3_600_000, Math.max(1000, ctx.config.erasureCompactMs / 4));
  const timer = setInterval(() => {
    compactErasures(ctx).catch((err: unknown) =>
      ctx.log.error({ err }, 'compacting after an erasure failed'),
    );
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}
