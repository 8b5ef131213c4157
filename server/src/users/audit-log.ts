import type { AuditEntry } from '@wa/contract';
import { aboutUser, auditPage, both, visibleToAdmin } from '../audit/repository.ts';
import type { Db } from '../db/client.ts';
import { type Actor, authorizeUser } from '../policy/access.ts';
import { findUserById } from './repository.ts';

/** The audit log as an admin may read it, newest first; `userId` narrows it to one user it manages (or itself). */
export async function auditForAdmin(
  db: Db,
  admin: Actor,
  query: { limit: number; offset: number; userId?: string },
): Promise<{ entries: AuditEntry[]; total: number }> {
  const self = await findUserById(db, admin.id);
  let where = visibleToAdmin({ id: admin.id, managedBy: self?.managedBy ?? null });
  if (query.userId) {
    if (query.userId !== admin.id) await authorizeUser(db, admin, 'manage', query.userId);
    where = both(where, aboutUser(query.userId));
  }
  const { rows, total } = await auditPage(db, where, query.limit, query.offset);
  return {
    total,
    entries: rows.map(({ entry, targetUsername }) => ({
      id: String(entry.id),
      at: entry.at.toISOString(),
      actor: entry.actor,
      actorId: entry.actorId,
      action: entry.action,
      targetUserId: entry.targetUserId,
      targetUsername,
      details: entry.details ?? null,
      ip: entry.ip,
    })),
  };
}
