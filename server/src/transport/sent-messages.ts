/**
 * Messages a transport sent, kept per account (SendResult.kept: Baileys needs them for retries,
 * the simulator's outbox lists them). The dispatch tick writes them with the send's outcome.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { waSentMessages } from '../db/schema.ts';

export async function findSentMessage(db: Db, accountId: string, messageId: string): Promise<string | null> {
  const [row] = await db
    .select({ message: waSentMessages.message })
    .from(waSentMessages)
    .where(and(eq(waSentMessages.accountId, accountId), eq(waSentMessages.messageId, messageId)));
  return row?.message ?? null;
}

/** The copies of one account, as the Baileys transport reads them (its storage port, socket.ts). */
export function sentCopies(db: Db, accountId: string): (messageId: string) => Promise<string | null> {
  return (messageId) => findSentMessage(db, accountId, messageId);
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

/** The latest `limit` messages of an account, newest first. */
export async function listSentMessages(db: Db, accountId: string, limit: number) {
  return db
    .select()
    .from(waSentMessages)
    .where(eq(waSentMessages.accountId, accountId))
    .orderBy(desc(waSentMessages.createdAt))
    .limit(limit);
}
