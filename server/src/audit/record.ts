import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
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

/** The class of the advisory locks that make counting a repeated line one step. */
const COUNT_LOCK_CLASS = 727276;

/**
 * A line repeated by anyone without an account (a throttled sign-in): counted in one line per
 * actor, action, user and address within `windowMs` (details.attempts), not written again each
 * time, so the log cannot be flooded. The first time in the window writes the line with 1.
 */
export async function recordCounted(db: Db, entry: AuditEntry, windowMs: number): Promise<void> {
  const actor = entry.actor === 'cli' ? { id: null, username: 'cli' } : entry.actor;
  const ip = entry.ip ?? null;
  const target = entry.targetUserId ?? null;
  const key = crypto
    .createHash('sha256')
    .update(JSON.stringify([actor.username, entry.action, target, ip]))
    .digest()
    .readInt32BE(0);
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${COUNT_LOCK_CLASS}::int, ${key}::int)`);
    const counted = await queryRows<{ id: number }>(
      tx,
      sql`UPDATE audit_log SET details = jsonb_set(details, '{attempts}', to_jsonb(coalesce((details->>'attempts')::int, 1) + 1)), at = now()
          WHERE id = (SELECT id FROM audit_log
                      WHERE action = ${entry.action} AND actor = ${actor.username}
                        AND target_user_id IS NOT DISTINCT FROM ${target} AND ip IS NOT DISTINCT FROM ${ip}
                        AND details ? 'attempts' AND at > now() - make_interval(secs => ${windowMs / 1000})
                      ORDER BY id DESC LIMIT 1)
          RETURNING id`,
    );
    if (counted.length === 0) await recordAudit(tx, { ...entry, details: { ...entry.details, attempts: 1 } });
  });
}
