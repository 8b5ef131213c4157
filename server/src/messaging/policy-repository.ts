import { eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { sessionPolicies, waSessions } from '../db/schema.ts';

/** The sending policy's queries, for the policy API and the engine's store. */

export type PolicyRow = typeof sessionPolicies.$inferSelect;

/** The account's stored policy (undefined: the defaults) and when it was linked. */
export async function findPolicy(
  db: Db,
  sessionId: string,
): Promise<{ row: PolicyRow | undefined; linkedAt: Date | null }> {
  const [session] = await db
    .select({ linkedAt: waSessions.linkedAt })
    .from(waSessions)
    .where(eq(waSessions.sessionId, sessionId));
  const [row] = await db.select().from(sessionPolicies).where(eq(sessionPolicies.sessionId, sessionId));
  return { row, linkedAt: session?.linkedAt ?? null };
}

export type PolicyValues = Omit<PolicyRow, 'sessionId' | 'heldReason' | 'heldUntil' | 'updatedAt'>;

export async function savePolicy(db: Db, sessionId: string, values: PolicyValues): Promise<void> {
  await db
    .insert(sessionPolicies)
    .values({ sessionId, ...values, updatedAt: new Date() })
    .onConflictDoUpdate({ target: sessionPolicies.sessionId, set: { ...values, updatedAt: new Date() } });
}

/**
 * Messages of the account sent since `since` (the start of its local day): all of them, and those
 * to one-to-one chats. Counted in the database, so every node sees the same figure.
 */
export async function countSentSince(
  db: Db,
  sessionId: string,
  since: Date,
): Promise<{ all: number; oneToOne: number }> {
  const [row] = await queryRows<{ all: number; one_to_one: number }>(
    db,
    sql`SELECT count(*)::int AS all, count(*) FILTER (WHERE chat_id NOT LIKE '%@g.us')::int AS one_to_one
        FROM message_job_recipients
        WHERE session_id = ${sessionId} AND status = 'sent' AND sent_at >= ${since.toISOString()}::timestamptz`,
  );
  return { all: row?.all ?? 0, oneToOne: row?.one_to_one ?? 0 };
}

/** Records why the account's recipients wait and until when (null: they no longer wait). */
export async function setHold(
  db: Db,
  sessionId: string,
  reason: string | null,
  until: Date | null,
): Promise<void> {
  await db.execute(
    sql`INSERT INTO session_policies (session_id, held_reason, held_until)
        SELECT ${sessionId}, ${reason}, ${until ? until.toISOString() : null}::timestamptz
        WHERE EXISTS (SELECT 1 FROM wa_sessions WHERE session_id = ${sessionId})
        ON CONFLICT (session_id) DO UPDATE SET held_reason = EXCLUDED.held_reason, held_until = EXCLUDED.held_until`,
  );
}

/** Of these accounts, those whose recipients wait now, with why. */
export async function holdsOf(db: Db, sessionIds: string[]): Promise<Map<string, string>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await queryRows<{ session_id: string; held_reason: string }>(
    db,
    sql`SELECT session_id, held_reason FROM session_policies
        WHERE session_id = ANY(${sql.param(sessionIds)}::text[]) AND held_reason IS NOT NULL AND held_until > now()`,
  );
  return new Map(rows.map((r) => [r.session_id, r.held_reason]));
}
