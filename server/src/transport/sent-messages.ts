import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { waSentMessages } from '../db/schema.ts';

/** Messages a transport sent, kept per session (Baileys needs them for retries; the simulator's outbox). */
export async function recordSentMessage(
  db: Db,
  row: { sessionId: string; messageId: string; chatId: string; message: string },
): Promise<void> {
  await db.insert(waSentMessages).values(row).onConflictDoNothing();
}

export async function findSentMessage(db: Db, sessionId: string, messageId: string): Promise<string | null> {
  const [row] = await db
    .select({ message: waSentMessages.message })
    .from(waSentMessages)
    .where(and(eq(waSentMessages.sessionId, sessionId), eq(waSentMessages.messageId, messageId)));
  return row?.message ?? null;
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
