import type { HealthSignals } from '@wa/contract';
import { eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { type accountEvents, accountHealth } from '../../db/schema.ts';
import { chatAddressKind, chatAddressValue, isPhoneChat, personChatIds } from '../../db/vocabulary-sql.ts';

/** The account-health queries: the window's signals, the account's events, its health row. */

export type AccountEventKind = (typeof accountEvents.$inferInsert)['kind'];
export type HealthRow = typeof accountHealth.$inferSelect;

/** Records what the account's health reads beside its recipients (a disconnect, a restriction, a 429). */
export async function recordAccountEvent(
  db: Db,
  accountId: string,
  kind: AccountEventKind,
  detail: string | null,
): Promise<void> {
  await db.execute(
    sql`INSERT INTO account_events (session_id, kind, detail)
        SELECT ${accountId}, ${kind}, ${detail} WHERE EXISTS (SELECT 1 FROM wa_sessions WHERE session_id = ${accountId})`,
  );
}

/** The breaker's pauses of the account since `since`. */
export async function countProtectPauses(db: Db, accountId: string, since: Date): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM account_events
        WHERE session_id = ${accountId} AND kind = 'protect-paused' AND at >= ${since.toISOString()}::timestamptz`,
  );
  return row?.n ?? 0;
}

/** Events older than a week go (the window is a day). */
export async function pruneAccountEvents(db: Db): Promise<void> {
  await db.execute(sql`DELETE FROM account_events WHERE at < now() - interval '7 days'`);
}

/**
 * Failures that say nothing about WhatsApp's view of the account: the engine's own texts
 * (messaging/messages.ts, which accounts/ may not import) for sends that never reached WhatsApp,
 * were stopped by the product, or lost to a node that died. 'Not on WhatsApp' is its own signal.
 */
const NOT_WHATSAPPS_ANSWER = [
  'Opted out',
  'Session is not connected',
  'Cancelled: job deleted',
  'The account is disabled',
  'Bulk messaging is not enabled for your account',
  'The account may no longer send these messages',
  'Message content is missing',
  'Interrupted: delivery unknown',
  'Not on WhatsApp',
];
const NOT_ON_WHATSAPP = 'Not on WhatsApp';

/** The account's signals since `since`: one statement, each part on a partial index of the account. */
export async function readSignals(db: Db, accountId: string, since: Date): Promise<HealthSignals> {
  const from = since.toISOString();
  // A new contact is a person (any of their addresses) the account had sent nothing to before `since`.
  const addressKind = chatAddressKind(sql.raw('s.chat_id'));
  const addressValue = chatAddressValue(sql.raw('s.chat_id'));
  const [row] = await queryRows<Record<keyof HealthSignals, number>>(
    db,
    sql`WITH sent AS (
          SELECT r.chat_id FROM message_job_recipients r
          WHERE r.session_id = ${accountId} AND r.status = 'sent' AND r.sent_at >= ${from}::timestamptz
        ), failed AS (
          SELECT r.error FROM message_job_recipients r
          WHERE r.session_id = ${accountId} AND r.status = 'failed' AND r.failed_at >= ${from}::timestamptz
        ), events AS (
          SELECT kind FROM account_events WHERE session_id = ${accountId} AND at >= ${from}::timestamptz
        )
        SELECT
          (SELECT count(*) FROM sent)::int AS "sent",
          (SELECT count(*) FROM sent WHERE ${isPhoneChat(sql.raw('chat_id'))})::int AS "oneToOneSent",
          (SELECT count(*) FROM failed WHERE NOT (error = ANY(${sql.param(NOT_WHATSAPPS_ANSWER)}::text[])))::int AS "failed",
          (SELECT count(*) FROM message_job_recipients r
             WHERE r.session_id = ${accountId} AND r.undelivered_at IS NOT NULL
               AND r.undelivered_at >= ${from}::timestamptz)::int AS "undelivered",
          (SELECT count(*) FROM failed WHERE error = ${NOT_ON_WHATSAPP})::int AS "notOnWhatsApp",
          (SELECT count(*) FROM events WHERE kind = 'restricted')::int AS "restrictions",
          (SELECT count(*) FROM events WHERE kind = 'rate-limited')::int AS "rateLimited",
          (SELECT count(*) FROM events WHERE kind = 'disconnected')::int AS "disconnects",
          (SELECT count(*) FROM opt_outs o JOIN wa_sessions s ON s.user_id = o.user_id
             WHERE s.session_id = ${accountId} AND o.source = 'reply' AND o.created_at >= ${from}::timestamptz
               AND EXISTS (SELECT 1 FROM message_job_recipients p
                           WHERE p.session_id = ${accountId} AND p.status = 'sent'
                             AND p.chat_id = ANY(${personChatIds(sql.raw('o.user_id'), sql.raw('o.address_kind'), sql.raw('o.phone_number'))})))::int AS "stops",
          (SELECT count(*) FROM message_job_recipients r
             WHERE r.session_id = ${accountId} AND r.replied_at IS NOT NULL
               AND r.replied_at >= ${from}::timestamptz)::int AS "replies",
          (SELECT count(DISTINCT coalesce(pa.person_id, s.chat_id)) FROM sent s
             LEFT JOIN person_addresses pa ON pa.user_id = (SELECT user_id FROM wa_sessions WHERE session_id = ${accountId})
               AND pa.kind = ${addressKind} AND pa.value = ${addressValue}
             WHERE ${addressKind} IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM message_job_recipients p
                               WHERE p.session_id = ${accountId} AND p.status = 'sent' AND p.sent_at < ${from}::timestamptz
                                 AND p.chat_id = ANY(${personChatIds(sql`(SELECT user_id FROM wa_sessions WHERE session_id = ${accountId})`, addressKind, addressValue)})))::int AS "newContacts"`,
  );
  const r = row!;
  return { ...r, lookups: r.oneToOneSent + r.notOnWhatsApp };
}

export async function findHealth(db: Db, accountId: string): Promise<HealthRow | undefined> {
  const [row] = await db.select().from(accountHealth).where(eq(accountHealth.accountId, accountId));
  return row;
}

export type HealthValues = Omit<HealthRow, 'accountId' | 'evaluatedAt'>;

/**
 * Writes the account's evaluated health (only while the account exists). `at`: when the evaluation
 * began, before its signals were read: what happens later is new to the next one.
 */
export async function saveHealth(db: Db, accountId: string, values: HealthValues, at: Date): Promise<void> {
  await db
    .insert(accountHealth)
    .values({ accountId, ...values, evaluatedAt: at })
    .onConflictDoUpdate({ target: accountHealth.accountId, set: { ...values, evaluatedAt: at } });
}

/**
 * Of `accountIds`, the accounts whose health an evaluation may change, in one statement:
 * - never evaluated, or under the breaker's pause, or paused now and not when last evaluated (or
 *   the other way round);
 * - anything new since their last evaluation (an outcome, a delivery verdict, a reply, an event,
 *   a STOP to their user), with a margin (`marginMs`, HEALTH_MARGIN_MS: a minute) for a write
 *   whose transaction began before it;
 * - a new local day (the warm-up step);
 * - signals in the window, every REFRESH_MINUTES: with nothing new they only leave the window as it
 *   slides, which can only raise the score (a recovery seen a few minutes late; a new failure is
 *   seen at the next check).
 * A quiet account's signals are all zero and stay zero: evaluating every account every minute
 * wrote the same rows again, five statements an account (83 a second for 1,000 idle accounts).
 */
/** How often an account with signals in its window and nothing new is evaluated again. */
export const REFRESH_MINUTES = 10;

export async function accountsToEvaluate(
  db: Db,
  accountIds: string[],
  now: Date,
  defaultTimezone: string,
  marginMs: number,
): Promise<string[]> {
  if (accountIds.length === 0) return [];
  const since = sql`h.evaluated_at - make_interval(secs => ${marginMs / 1000}::float8)`;
  const rows = await queryRows<{
    session_id: string;
    changed: boolean;
    timezone: string | null;
    day: string | null;
  }>(
    db,
    sql`SELECT s.session_id, p.timezone, h.warm_up_day_checked AS day,
               (h.session_id IS NULL OR h.protect_paused_at IS NOT NULL
                OR (h.state = 'paused') IS DISTINCT FROM
                   (s.send_paused AND (s.send_paused_until IS NULL OR s.send_paused_until > now()))
                OR ((h.state <> 'good' OR EXISTS (SELECT 1 FROM jsonb_each(h.signals) e WHERE e.value <> '0'::jsonb))
                    AND h.evaluated_at < now() - make_interval(mins => ${REFRESH_MINUTES}))
                OR EXISTS (SELECT 1 FROM message_job_recipients r WHERE r.session_id = s.session_id
                             AND r.status = 'sent' AND r.sent_at >= ${since})
                OR EXISTS (SELECT 1 FROM message_job_recipients r WHERE r.session_id = s.session_id
                             AND r.status = 'failed' AND r.failed_at >= ${since})
                OR EXISTS (SELECT 1 FROM message_job_recipients r WHERE r.session_id = s.session_id
                             AND r.undelivered_at IS NOT NULL AND r.undelivered_at >= ${since})
                OR EXISTS (SELECT 1 FROM message_job_recipients r WHERE r.session_id = s.session_id
                             AND r.replied_at IS NOT NULL AND r.replied_at >= ${since})
                OR EXISTS (SELECT 1 FROM account_events a WHERE a.session_id = s.session_id
                             AND a.at >= ${since})
                OR EXISTS (SELECT 1 FROM opt_outs o WHERE o.user_id = s.user_id AND o.source = 'reply'
                             AND o.created_at >= ${since})) AS changed
        FROM wa_sessions s
        LEFT JOIN account_health h ON h.session_id = s.session_id
        LEFT JOIN session_policies p ON p.session_id = s.session_id
        WHERE s.session_id = ANY(${sql.param(accountIds)}::text[])`,
  );
  return rows
    .filter((r) => r.changed || r.day !== localDate(now, r.timezone ?? defaultTimezone))
    .map((r) => r.session_id);
}

/** The account's local date, YYYY-MM-DD. */
export function localDate(at: Date, tz: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(at);
}
