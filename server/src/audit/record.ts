import type { Db } from '../db/client.ts';
import { auditLog } from '../db/schema.ts';

/** Who acted: a signed-in user (by id and username), or the operator's CLI. */
export type AuditActor = { id: string; username: string } | 'cli' | { id: null; username: string };

/** Who does an audited action and from where: services record it in the action's own transaction. */
export type AuditBy = { actor: AuditActor; ip?: string | null };

export type AuditEntry = {
  actor: AuditActor;
  action: string;
  /** The user the action is about. */
  targetUserId?: string | null;
  details?: Record<string, unknown>;
  ip?: string | null;
};

/**
 * Appends one line to the audit log. Called inside the transaction of the change it records:
 * the line stands or falls with the change, and it is written before the answer leaves.
 */
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
