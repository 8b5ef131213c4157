import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { apiKeys } from '../db/schema.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export const listKeysOf = (db: Db, userId: string) =>
  db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt));

export async function countActiveKeysOf(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
  return row?.n ?? 0;
}

export async function insertKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [created] = await db.insert(apiKeys).values(row).returning();
  return created!;
}

export type RevokeReason = NonNullable<ApiKeyRow['revokedReason']>;

export async function revokeKey(db: Db, id: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ revokedAt: new Date(), revokedReason: 'revoked' })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
}

/** The live key with this hash, marking it used (at most once a minute: a busy key is not a write per call). */
export async function useKey(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
  if (!row) return undefined;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db
      .update(apiKeys)
      .set({ lastUsedAt: new Date() })
      .where(
        and(
          eq(apiKeys.id, row.id),
          sql`(${apiKeys.lastUsedAt} IS NULL OR ${apiKeys.lastUsedAt} < now() - interval '1 minute')`,
        ),
      );
  }
  return row;
}
