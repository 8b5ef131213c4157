import type { Db } from '../db/client.ts';
import { auditLog } from '../db/schema.ts';

/** Who acted: a signed-in user (by id and username), or the operator's CLI. */
export type AuditActor = { id: string; username: string } | 'cli' | { id: null; username: string };

export type AuditEntry = {
  actor: AuditActor;
  action: string;
  /** The user the action is about. */
  targetUserId?: string | null;
  details?: Record<string, unknown>;
  ip?: string | null;
};

/** Appends one line to the audit log; called in the same transaction as the change it records. */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  const actor = entry.actor === 'cli' ? { id: null, username: 'cli' } : entry.actor;
  await db.insert(auditLog).values({
    actorId: actor.id,
    actor: actor.username,
    action: entry.action,
    targetUserId: entry.targetUserId ?? null,
    details: entry.details ?? null,
    ip: entry.ip ?? null,
  });
}
