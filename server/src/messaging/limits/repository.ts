import { eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { accountHealth, accountPolicies, accounts } from '../../db/schema.ts';
import { isPhoneChat } from '../../db/vocabulary-sql.ts';

/** The sending policy's queries, for the policy API and the engine's store. */

export type PolicyRow = typeof accountPolicies.$inferSelect;

/** What the account's health (accounts/health) sets on its limits: watch lowers them, unhealthy days hold the warm-up. */
export type HealthEffect = { state: 'good' | 'watch' | 'paused'; warmUpHeldDays: number };

/** The account's stored policy (undefined: the defaults), when it was linked, and its last evaluated health. */
export async function findPolicy(
  db: Db,
  accountId: string,
): Promise<{ row: PolicyRow | undefined; linkedAt: Date | null; health: HealthEffect | null }> {
  const [account] = await db
    .select({ linkedAt: accounts.linkedAt })
    .from(accounts)
    .where(eq(accounts.accountId, accountId));
  const [row] = await db.select().from(accountPolicies).where(eq(accountPolicies.accountId, accountId));
  const [health] = await db
    .select({ state: accountHealth.state, warmUpHeldDays: accountHealth.warmUpHeldDays })
    .from(accountHealth)
    .where(eq(accountHealth.accountId, accountId));
  return { row, linkedAt: account?.linkedAt ?? null, health: health ?? null };
}

export type PolicyValues = Omit<PolicyRow, 'accountId' | 'heldReason' | 'heldUntil' | 'updatedAt'>;

export async function savePolicy(db: Db, accountId: string, values: PolicyValues): Promise<void> {
  await db
    .insert(accountPolicies)
    .values({ accountId, ...values, updatedAt: new Date() })
    .onConflictDoUpdate({ target: accountPolicies.accountId, set: { ...values, updatedAt: new Date() } });
}

/**
 * Messages of the account sent since `since` (the start of its local day): all of them, and those
 * to one-to-one chats (a person's number: not groups, not channels); with `newContacts`, also the one-to-one numbers it had never messaged
 * before `since` (an index probe per message, so only when a cap asks). Counted in the database,
 * so every node sees the same figure.
 */
export async function countSentSince(
  db: Db,
  accountId: string,
  since: Date,
  newContacts = false,
): Promise<{ all: number; oneToOne: number; newContacts: number }> {
  const from = since.toISOString();
  const [row] = await queryRows<{ all: number; one_to_one: number; new_contacts: number }>(
    db,
    sql`SELECT count(*)::int AS all, count(*) FILTER (WHERE ${isPhoneChat(sql.raw('r.chat_id'))})::int AS one_to_one,
          ${
            newContacts
              ? sql`count(DISTINCT r.chat_id) FILTER (WHERE ${isPhoneChat(sql.raw('r.chat_id'))} AND NOT EXISTS (
                  SELECT 1 FROM message_job_recipients p
                  WHERE p.session_id = r.session_id AND p.chat_id = r.chat_id AND p.status = 'sent'
                    AND p.sent_at < ${from}::timestamptz))::int`
              : sql`0`
          } AS new_contacts
        FROM message_job_recipients r
        WHERE r.session_id = ${accountId} AND r.status = 'sent' AND r.sent_at >= ${from}::timestamptz`,
  );
  return { all: row?.all ?? 0, oneToOne: row?.one_to_one ?? 0, newContacts: row?.new_contacts ?? 0 };
}

/** Records why the account's recipients wait and until when (null: they no longer wait). */
export async function setHold(
  db: Db,
  accountId: string,
  reason: string | null,
  until: Date | null,
): Promise<void> {
  await db.execute(
    sql`INSERT INTO session_policies (session_id, held_reason, held_until)
        SELECT ${accountId}, ${reason}, ${until ? until.toISOString() : null}::timestamptz
        WHERE EXISTS (SELECT 1 FROM wa_sessions WHERE session_id = ${accountId})
        ON CONFLICT (session_id) DO UPDATE SET held_reason = EXCLUDED.held_reason, held_until = EXCLUDED.held_until`,
  );
}

/**
 * Of these accounts, those whose recipients wait now, with why; under `<sessionId>@direct`, those
 * whose one-to-one sends are paused (463, the new-chat cap; accounts/send-pause.ts), with until
 * when in the account's time zone.
 */
export async function holdsOf(db: Db, accountIds: string[]): Promise<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  const rows = await queryRows<{ session_id: string; held_reason: string }>(
    db,
    sql`SELECT session_id, held_reason FROM session_policies
        WHERE session_id = ANY(${sql.param(accountIds)}::text[]) AND held_reason IS NOT NULL AND held_until > now()
        UNION ALL
        SELECT s.session_id || '@direct', s.status_reason || CASE WHEN s.send_paused_until IS NULL THEN ''
                 ELSE ': new chats are tried again at '
                   || to_char(s.send_paused_until AT TIME ZONE coalesce(p.timezone, 'Asia/Kolkata'), 'HH24:MI') END
        FROM wa_sessions s LEFT JOIN session_policies p ON p.session_id = s.session_id
        WHERE s.session_id = ANY(${sql.param(accountIds)}::text[]) AND s.status_reason IS NOT NULL
          AND s.send_paused AND (s.send_paused_until IS NULL OR s.send_paused_until > now())`,
  );
  return new Map(rows.map((r) => [r.session_id, r.held_reason]));
}
