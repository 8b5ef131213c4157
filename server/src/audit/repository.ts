import { and, desc, eq, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { auditLog, users } from '../db/schema.ts';

/** Audit lines matching `where`, newest first, with the target's current username. */
export async function auditPage(db: Db, where: SQL, limit: number, offset: number) {
  const rows = await db
    .select({ entry: auditLog, targetUsername: users.username })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.targetUserId))
    .where(where)
    .orderBy(desc(auditLog.id))
    .limit(limit)
    .offset(offset);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(auditLog).where(where);
  return { rows, total: count?.n ?? 0 };
}

/**
 * What an admin may see: lines about the users it manages or itself, lines it wrote, and for
 * a top-level admin also failed sign-ins under names that match no user.
 */
export function visibleToAdmin(admin: { id: string; managedBy: string | null }): SQL {
  const managed = sql`(SELECT id FROM users WHERE managed_by = ${admin.id})`;
  return or(
    sql`${auditLog.targetUserId} IN ${managed}`,
    eq(auditLog.targetUserId, admin.id),
    eq(auditLog.actorId, admin.id),
    admin.managedBy === null ? isNull(auditLog.targetUserId) : sql`false`,
  )!;
}

export function aboutUser(userId: string): SQL {
  return or(eq(auditLog.targetUserId, userId), eq(auditLog.actorId, userId))!;
}

export const both = (a: SQL, b: SQL): SQL => and(a, b)!;
