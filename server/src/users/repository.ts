import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { apiKeys, authTokens, creditLedger, passwordResetRequests, users } from '../db/schema.ts';

export type UserRow = typeof users.$inferSelect;

export async function findUserByUsername(db: Db, username: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(sql`lower(${users.username}) = lower(${username})`);
  return row;
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

/**
 * Locks a user's row until the transaction ends: a count-then-insert limit of what they own
 * (API keys, webhooks) is then one step per owner, however many requests race.
 */
export async function lockOwner(db: Db, userId: string): Promise<void> {
  await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
}

/** The users an ADMIN manages, oldest first. */
export async function listManagedUsers(db: Db, adminId: string): Promise<UserRow[]> {
  return db.select().from(users).where(eq(users.managedBy, adminId)).orderBy(users.createdAt, users.username);
}

export async function firstAdmin(db: Db): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.role, 'ADMIN'), isNull(users.managedBy)))
    .orderBy(users.createdAt)
    .limit(1);
  return row;
}

export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
  return row?.n ?? 0;
}

export async function insertUser(db: Db, values: typeof users.$inferInsert): Promise<UserRow> {
  const [row] = await db.insert(users).values(values).returning();
  return row!;
}

export async function updateUser(
  db: Db,
  id: string,
  values: Partial<typeof users.$inferInsert>,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  return row;
}

export async function pendingResetRequests(db: Db, userIds: string[]): Promise<Map<string, Date>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .select({
      userId: passwordResetRequests.userId,
      at: sql<Date>`max(${passwordResetRequests.requestedAt})`,
    })
    .from(passwordResetRequests)
    .where(isNull(passwordResetRequests.handledAt))
    .groupBy(passwordResetRequests.userId);
  const wanted = new Set(userIds);
  return new Map(rows.filter((r) => wanted.has(r.userId)).map((r) => [r.userId, new Date(r.at)]));
}

export async function markResetRequestsHandled(db: Db, userId: string): Promise<void> {
  await db
    .update(passwordResetRequests)
    .set({ handledAt: new Date() })
    .where(and(eq(passwordResetRequests.userId, userId), isNull(passwordResetRequests.handledAt)));
}

export async function ledgerOf(db: Db, userId: string, limit = 500) {
  return db
    .select()
    .from(creditLedger)
    .where(eq(creditLedger.userId, userId))
    .orderBy(desc(creditLedger.id))
    .limit(limit);
}

/** Signs the user out everywhere: every token still valid stops working at once. */
export async function revokeTokensOf(db: Db, userId: string): Promise<void> {
  await db
    .update(authTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(authTokens.userId, userId), isNull(authTokens.revokedAt)));
}

export type KeyRevokeReason = NonNullable<(typeof apiKeys.$inferSelect)['revokedReason']>;

/**
 * Ends every live API key of a user (new password, two-factor sign-in turned on, user
 * disabled): a key made with a stolen password or token must not outlive the reset.
 */
export async function revokeKeysOf(db: Db, userId: string, reason: KeyRevokeReason): Promise<number> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date(), revokedReason: reason })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length;
}
