import { and, desc, eq, sql } from 'drizzle-orm';
import { batcher } from '../batch.ts';
import { type Db, queryRows } from '../db/client.ts';
import { waSentMessages } from '../db/schema.ts';

type SentRow = { sessionId: string; messageId: string; chatId: string; message: string };

const writers = new WeakMap<Db, (row: SentRow) => Promise<Error | undefined>>();

const insertRows = (db: Db, rows: SentRow[]) =>
  db.execute(
    sql`INSERT INTO wa_sent_messages (session_id, message_id, chat_id, message)
        SELECT * FROM unnest(${sql.param(rows.map((r) => r.sessionId))}::text[],
                             ${sql.param(rows.map((r) => r.messageId))}::text[],
                             ${sql.param(rows.map((r) => r.chatId))}::text[],
                             ${sql.param(rows.map((r) => r.message))}::text[])
        ON CONFLICT DO NOTHING`,
  );

/**
 * Messages a transport sent, kept per session (Baileys needs them for retries; the simulator's
 * outbox). Resolves once the row is stored; the sends of every session of this node that finish
 * while a write runs are stored together in the next statement (one per tick, not one per send).
 * When a batch fails (a session deleted meanwhile), each row is tried alone, so one session's
 * fault is not another's.
 */
export async function recordSentMessage(db: Db, row: SentRow): Promise<void> {
  let write = writers.get(db);
  if (!write) {
    write = batcher<SentRow, Error | undefined>(
      async (rows) => {
        try {
          await insertRows(db, rows);
          return rows.map(() => undefined);
        } catch (err) {
          if (rows.length === 1) return [err as Error];
          return Promise.all(
            rows.map((r) =>
              insertRows(db, [r]).then(
                () => undefined,
                (e: Error) => e,
              ),
            ),
          );
        }
      },
      () => false,
      2,
    );
    writers.set(db, write);
  }
  const failed = await write(row);
  if (failed) throw failed;
}

export async function findSentMessage(db: Db, sessionId: string, messageId: string): Promise<string | null> {
  const [row] = await db
    .select({ message: waSentMessages.message })
    .from(waSentMessages)
    .where(and(eq(waSentMessages.sessionId, sessionId), eq(waSentMessages.messageId, messageId)));
  return row?.message ?? null;
}

/**
 * How long a sent message is kept: WhatsApp's retry requests and poll votes come within days;
 * without a limit the table grew by one row per message for ever.
 */
export const SENT_MESSAGES_KEEP_MS = 14 * 24 * 3_600_000;

/** Deletes sent messages older than `keepMs`, 5,000 rows a statement; returns how many. */
export async function pruneSentMessages(db: Db, keepMs = SENT_MESSAGES_KEEP_MS): Promise<number> {
  const before = new Date(Date.now() - keepMs);
  let total = 0;
  for (;;) {
    const [row] = await queryRows<{ n: number }>(
      db,
      sql`WITH gone AS (
            DELETE FROM wa_sent_messages WHERE ctid IN (
              SELECT ctid FROM wa_sent_messages WHERE created_at < ${before} LIMIT 5000)
            RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
    );
    const n = row?.n ?? 0;
    total += n;
    if (n < 5000) return total;
  }
}

/** The latest `limit` messages of a session, newest first. */
export async function listSentMessages(db: Db, sessionId: string, limit: number) {
  return db
    .select()
    .from(waSentMessages)
    .where(eq(waSentMessages.sessionId, sessionId))
    .orderBy(desc(waSentMessages.createdAt))
    .limit(limit);
}
