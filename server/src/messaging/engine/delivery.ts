import { type SQL, sql } from 'drizzle-orm';
import { reverseRefundCtes } from '../../credits/credits.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { isChannelChat, isPhoneChat } from '../../db/vocabulary-sql.ts';
import type { UndeliveredCause } from '../../transport/types.ts';
import { DISPATCH_MESSAGES, UNDELIVERED_REASONS } from '../messages.ts';
import type { SentMessage } from './claim.ts';
import { jobCounters, ms } from './rules.ts';

/**
 * The transitions of a recipient after its send (delivery truth): undelivered when no
 * delivery receipt came in time, replied when the contact wrote back, and sent after all when a
 * send the engine gave up on (time-out, lost node) turns out to have reached WhatsApp. Each is one
 * statement with its counters (and refund reversal); receipts are applied in receipts.ts.
 *
 * Lock order, as everywhere in the engine: jobs first (in id order), then their recipients.
 */

/** How long after its send a contact's message still counts as a reply to it. */
export const REPLY_WINDOW_MS = 7 * 24 * 3_600_000;
/** Reply texts are kept up to this many characters. */
export const REPLY_TEXT_MAX = 4096;

/** The failures whose delivery is unknown: WhatsApp may have the message after all. */
const DELIVERY_UNKNOWN = [DISPATCH_MESSAGES.sendTimedOut, DISPATCH_MESSAGES.interrupted];

/**
 * undeliver: each account's sent messages past the deadline (`afterMs` after their send) that the
 * sweep has not read yet, up to about `limit` an account (oldest first, from its mark in
 * undelivered_sweeps, through the recipients' (session_id, sent_at) index), are read once: those
 * with no delivery receipt become undelivered (but a Channel post, which gets none), with the cause where one is known (a cause noted
 * earlier is kept; an account whose new one-to-one chats are restricted now: 463), counted on
 * their jobs, and the mark moves past them. Sends of one instant (a Status post's) are read
 * together, so the mark never splits them. Multi-node safe: an account's mark is taken SKIP
 * LOCKED, so one node reads each account at a time; its jobs are locked first, then the rows,
 * SKIP LOCKED: the mark stops before a row another transaction holds, to read it next time.
 * Returns how many became undelivered, and whether an account has more past the deadline.
 */
export async function undeliver(
  db: Db,
  afterMs: number,
  limit: number,
): Promise<{ marked: number; more: boolean }> {
  // Recipient r is a send of mark m's account that the sweep has not read, past the deadline.
  const unread = sql`r.session_id = m.session_id AND r.status = 'sent'
                     AND r.sent_at > m.swept_to AND r.sent_at <= now() - ${ms(afterMs)}`;
  const rows = await queryRows<{ n: number; more: boolean }>(
    db,
    sql`WITH marks AS MATERIALIZED (
          SELECT m.session_id, m.swept_to FROM undelivered_sweeps m
          WHERE EXISTS (SELECT 1 FROM message_job_recipients r WHERE ${unread})
          ORDER BY m.session_id
          FOR UPDATE SKIP LOCKED
        ), ends AS MATERIALIZED (
          -- How far each account is read now: its limit-th send past the mark (or the last).
          SELECT m.session_id, m.swept_to, e.sent_at AS read_to, e.n FROM marks m CROSS JOIN LATERAL (
            SELECT max(x.sent_at) AS sent_at, count(*)::int AS n FROM (
              SELECT r.sent_at FROM message_job_recipients r WHERE ${unread}
              ORDER BY r.sent_at LIMIT ${limit}) x
          ) e
        ), candidates AS (
          SELECT r.id, r.job_id, r.session_id, r.sent_at FROM ends e JOIN message_job_recipients r
            ON r.session_id = e.session_id AND r.status = 'sent' AND r.sent_at > e.swept_to AND r.sent_at <= e.read_to
          WHERE r.delivered_at IS NULL AND r.undelivered_at IS NULL
            -- A channel's followers send no delivery receipts (rc14 Socket/messages-recv.js: a
            -- newsletter message is processed "without receipts"): the mark moves past its posts.
            AND NOT ${isChannelChat(sql.raw('r.chat_id'))}
        ), locked AS MATERIALIZED (
          SELECT j.id FROM message_jobs j WHERE j.id IN (SELECT job_id FROM candidates)
          ORDER BY j.id FOR NO KEY UPDATE OF j
        ), picked AS (
          -- A row another transaction holds (a receipt, which then locks its job as this sweep
          -- does: waiting here could deadlock) is skipped, and the mark stops before it.
          SELECT r.id FROM message_job_recipients r
          WHERE r.id IN (SELECT id FROM candidates) AND (SELECT count(*) FROM locked) >= 0
          FOR UPDATE OF r SKIP LOCKED
        ), skipped AS (
          SELECT c.session_id, min(c.sent_at) AS first FROM candidates c
          WHERE c.id NOT IN (SELECT id FROM picked)
          GROUP BY c.session_id
        ), marked AS (
          UPDATE message_job_recipients r
          SET undelivered_at = now(),
              undelivered_reason = coalesce(r.undelivered_reason,
                CASE WHEN ${isPhoneChat(sql.raw('r.chat_id'))} AND EXISTS (
                       SELECT 1 FROM wa_sessions s WHERE s.session_id = r.session_id AND s.send_paused)
                     THEN ${UNDELIVERED_REASONS.restricted} END),
              updated_at = now()
          FROM picked
          WHERE r.id = picked.id AND r.status = 'sent' AND r.delivered_at IS NULL AND r.undelivered_at IS NULL
          RETURNING r.job_id
        ), moved AS (
          UPDATE undelivered_sweeps m
          SET swept_to = CASE WHEN s.first IS NULL THEN e.read_to ELSE s.first - interval '1 microsecond' END
          FROM ends e LEFT JOIN skipped s ON s.session_id = e.session_id
          WHERE m.session_id = e.session_id AND e.read_to IS NOT NULL
        ), per_job AS (
          SELECT job_id, count(*)::int AS n FROM marked GROUP BY job_id
        ), counted AS (
          UPDATE message_jobs j SET undelivered_count = j.undelivered_count + p.n
          FROM per_job p WHERE j.id = p.job_id
          RETURNING p.n
        )
        SELECT coalesce((SELECT sum(n) FROM counted), 0)::int AS n,
               coalesce((SELECT bool_or(e.n >= ${limit} AND s.first IS NULL)
                         FROM ends e LEFT JOIN skipped s ON s.session_id = e.session_id), false) AS more`,
  );
  return { marked: rows[0]?.n ?? 0, more: rows[0]?.more ?? false };
}

/**
 * The accounts with no mark yet (new since the last sweep) get one from the beginning, so the
 * sweep reads all their sends. An account's mark outlives it: the sends of a deleted account
 * still become undelivered.
 */
export async function markNewAccounts(db: Db): Promise<void> {
  await db.execute(
    sql`INSERT INTO undelivered_sweeps (session_id, swept_to)
        SELECT s.session_id, '-infinity' FROM wa_sessions s
        WHERE NOT EXISTS (SELECT 1 FROM undelivered_sweeps m WHERE m.session_id = s.session_id)
        ON CONFLICT DO NOTHING`,
  );
}

/** A number found not on WhatsApp explains the sends to it of this long before (the number left since). */
export const NOT_ON_WHATSAPP_LOOKBACK_MS = 7 * 24 * 3_600_000;

/**
 * noteUndeliveredCause: what the account's transport learned of why some of its sent messages
 * will not arrive (a number WhatsApp now answers is not on it; a message whose recipient could not
 * decrypt it, retries given up) is kept on each such recipient no device confirmed, that has no
 * cause yet: `undeliver` shows it when the deadline passes (or the recipient already undelivered
 * gets it now), and a delivery receipt that comes after all clears it. No count changes. Jobs are
 * locked first (KEY SHARE, as receipts), then the recipients in id order. Returns how many.
 */
export async function noteUndeliveredCause(
  db: Db,
  accountId: string,
  cause: UndeliveredCause,
): Promise<number> {
  const which =
    cause.cause === 'not-on-whatsapp'
      ? sql`r.chat_id = ANY(${sql.param(cause.chatIds)}::text[])
            AND r.sent_at > now() - ${ms(NOT_ON_WHATSAPP_LOOKBACK_MS)}`
      : sql`r.message_id = ANY(${sql.param(cause.messageIds)}::text[])`;
  const reason =
    cause.cause === 'not-on-whatsapp' ? UNDELIVERED_REASONS.notOnWhatsApp : UNDELIVERED_REASONS.decryptGaveUp;
  const open = sql`r.status = 'sent' AND r.delivered_at IS NULL AND r.undelivered_reason IS NULL`;
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH targets AS (
          SELECT r.id, r.job_id FROM message_job_recipients r
          WHERE r.session_id = ${accountId} AND ${which} AND ${open}
        ), locked AS MATERIALIZED (
          SELECT j.id FROM message_jobs j WHERE j.id IN (SELECT job_id FROM targets)
          ORDER BY j.id FOR KEY SHARE OF j
        ), picked AS (
          SELECT r.id FROM message_job_recipients r
          WHERE r.id IN (SELECT id FROM targets) AND (SELECT count(*) FROM locked) >= 0
          ORDER BY r.id FOR UPDATE OF r
        ), noted AS (
          UPDATE message_job_recipients r SET undelivered_reason = ${reason}, updated_at = now()
          FROM picked WHERE r.id = picked.id AND ${open}
          RETURNING r.id
        )
        SELECT count(*)::int AS n FROM noted`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * The account's latest send to any of `chatIds` within the reply window before `at` (rows `id`,
 * `job_id`): the message a reply at `at` answers.
 */
const latestSendWithin = (accountId: string, chatIds: string[], at: Date) =>
  sql`SELECT r.id, r.job_id FROM message_job_recipients r
      WHERE r.session_id = ${accountId} AND r.status = 'sent'
        AND (r.chat_id = ANY(${sql.param(chatIds)}::text[]) OR r.sent_to = ANY(${sql.param(chatIds)}::text[]))
        AND r.sent_at BETWEEN ${at}::timestamptz - ${ms(REPLY_WINDOW_MS)} AND ${at}::timestamptz
      ORDER BY r.sent_at DESC, r.id DESC
      LIMIT 1`;

/**
 * The job whose message a message from a person (`chatIds`: every address of theirs) to the
 * account at `at` answers: the one it quotes or votes on (`answers`, a message id of the account),
 * else the account's latest send to them within the reply window (as `reply` finds it); null when
 * there is none.
 */
export async function answeredJob(
  db: Db,
  accountId: string,
  chatIds: string[],
  at: Date,
  answers: string | null,
): Promise<string | null> {
  if (answers) {
    const [quoted] = await queryRows<{ job_id: string }>(
      db,
      sql`SELECT r.job_id FROM message_job_recipients r
          WHERE r.session_id = ${accountId} AND r.message_id = ${answers}
            AND (r.chat_id = ANY(${sql.param(chatIds)}::text[]) OR r.sent_to = ANY(${sql.param(chatIds)}::text[]))
          LIMIT 1`,
    );
    if (quoted) return quoted.job_id;
  }
  const [latest] = await queryRows<{ job_id: string }>(db, latestSendWithin(accountId, chatIds, at));
  return latest?.job_id ?? null;
}

/**
 * reply: a one-to-one text from a person (`from`: the chat ids of every address of theirs) to the
 * account `accountId` marks the latest message that account sent to them within the reply window
 * replied, with its time and text, counted on its job; a later message of the same contact
 * changes nothing (the first reply is kept). Returns the recipient's id, or null when there was
 * no such send (or it already had its reply).
 */
export async function reply(
  db: Db,
  accountId: string,
  from: string | string[],
  text: string,
  at = new Date(),
): Promise<number | null> {
  const chatIds = typeof from === 'string' ? [from] : from;
  const rows = await queryRows<{ id: number | string }>(
    db,
    sql`WITH latest AS (${latestSendWithin(accountId, chatIds, at)}), locked AS MATERIALIZED (
          SELECT j.id FROM message_jobs j WHERE j.id IN (SELECT job_id FROM latest) FOR NO KEY UPDATE OF j
        ), marked AS (
          UPDATE message_job_recipients r
          SET replied_at = ${at}, reply_text = ${text.slice(0, REPLY_TEXT_MAX)}, updated_at = now()
          FROM latest
          WHERE r.id = latest.id AND r.replied_at IS NULL AND r.status = 'sent'
            AND (SELECT count(*) FROM locked) >= 0
          RETURNING r.id, r.job_id
        ), counted AS (
          UPDATE message_jobs j SET replied_count = j.replied_count + 1
          FROM marked WHERE j.id = marked.job_id
          RETURNING j.id
        )
        SELECT id FROM marked`,
  );
  return rows[0] ? Number(rows[0].id) : null;
}

type LateInput = {
  ids: number[];
  messageIds: string[];
  sentTo: Array<string | null>;
  kept: Array<string | null>;
};

/**
 * The statement of sentAfterAll over `input` (a CTE body with columns id, message_id, sent_to,
 * kept, sent_at): recipients that failed with their delivery unknown and no message id become
 * sent with it, move from their jobs' failed count to the sent count (the finishing rule again:
 * a job failed only by them is completed), and their refund is reversed: what each was
 * refunded (its price) debited with a 'send' ledger row, when the balance covers it (a balance spent meanwhile stays
 * as it is: the message is shown sent either way). The transport's copy is kept.
 */
function sentAfterAllStatement(input: SQL): SQL {
  return sql`WITH input AS (${input}), sweeps AS MATERIALIZED (
          -- The accounts' undelivered-sweep marks first, as the sweep takes them (then the jobs).
          SELECT m.session_id FROM undelivered_sweeps m
          WHERE m.session_id IN (SELECT q.session_id FROM message_job_recipients q JOIN input i ON q.id = i.id)
          ORDER BY m.session_id FOR UPDATE OF m
        ), locked AS MATERIALIZED (
          SELECT j.id FROM message_jobs j
          WHERE j.id IN (SELECT q.job_id FROM message_job_recipients q JOIN input i ON q.id = i.id)
            AND (SELECT count(*) FROM sweeps) >= 0
          ORDER BY j.id FOR NO KEY UPDATE OF j
        ), r AS (
          UPDATE message_job_recipients m
          SET status = 'sent', message_id = i.message_id, sent_at = i.sent_at, error = NULL, failed_at = NULL,
              sent_to = CASE WHEN i.sent_to IS DISTINCT FROM m.chat_id THEN i.sent_to END,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          FROM input i
          WHERE m.id = i.id AND m.status = 'failed' AND m.message_id IS NULL
            AND m.error = ANY(${sql.param(DELIVERY_UNKNOWN)}::text[])
            AND (SELECT count(*) FROM locked) >= 0
          RETURNING m.id, m.job_id, m.session_id, m.chat_id, m.message_id, m.price, m.sent_at,
                    m.delivered_at IS NULL AND m.undelivered_at IS NULL AS awaiting
        ), rewound AS (
          -- A send recorded at a time the sweep has read past: it reads again from there.
          UPDATE undelivered_sweeps m SET swept_to = b.sent_at - interval '1 microsecond'
          FROM (SELECT session_id, min(sent_at) AS sent_at FROM r WHERE awaiting GROUP BY session_id) b
          WHERE m.session_id = b.session_id AND m.swept_to >= b.sent_at
        ), per_job AS (
          SELECT job_id, count(*)::int AS n, sum(price)::bigint AS credits FROM r GROUP BY job_id
        ), counted AS (
          UPDATE message_jobs j SET ${jobCounters({ sent: sql`p.n`, failed: sql`-p.n` })}
          FROM per_job p WHERE j.id = p.job_id
          RETURNING j.id AS job_id, j.user_id, p.credits
        ), ${reverseRefundCtes('counted', 'Sent after all: refund reversed')}, kept AS (
          INSERT INTO wa_sent_messages (session_id, message_id, chat_id, message)
          SELECT r.session_id, i.message_id, coalesce(i.sent_to, r.chat_id), i.kept
          FROM r JOIN input i ON i.id = r.id
          WHERE i.kept IS NOT NULL
          ON CONFLICT DO NOTHING
          RETURNING 1
        )
        SELECT r.id, r.message_id FROM r`;
}

/**
 * sentAfterAll: sends this node timed out on (SEND_TIMEOUT_MS: failed 'delivery unknown' and
 * refunded) whose transport answered later with the message id. Returns the recipients that
 * became sent.
 */
export async function sentAfterAll(db: Db, sent: Array<{ id: number } & SentMessage>): Promise<number[]> {
  if (sent.length === 0) return [];
  const input: LateInput = {
    ids: sent.map((s) => s.id),
    messageIds: sent.map((s) => s.messageId),
    sentTo: sent.map((s) => s.sentTo ?? null),
    kept: sent.map((s) => s.kept ?? null),
  };
  const rows = await queryRows<{ id: number | string }>(
    db,
    sentAfterAllStatement(
      sql`SELECT t.*, now() AS sent_at FROM unnest(${sql.param(input.ids)}::bigint[], ${sql.param(input.messageIds)}::text[],
            ${sql.param(input.sentTo)}::text[], ${sql.param(input.kept)}::text[]) AS t(id, message_id, sent_to, kept)`,
    ),
  );
  return rows.map((r) => Number(r.id));
}

/**
 * sentAfterAll for receipts (or acks) whose message id no recipient has: the transport keeps its
 * copy of a message before relaying it (wa_sent_messages: account, id, chat), so the copy names
 * the chat; that chat's latest recipient on the account that failed with its delivery unknown
 * after the copy was made, with no message id, becomes sent with that id (its refund reversed).
 * Returns the message ids that now match a recipient.
 */
export async function sentAfterAllByCopies(
  db: Db,
  messages: Array<{ accountId: string; messageId: string }>,
): Promise<string[]> {
  if (messages.length === 0) return [];
  const rows = await queryRows<{ message_id: string }>(
    db,
    sentAfterAllStatement(
      sql`SELECT DISTINCT ON (x.id) x.id, c.message_id, NULL::text AS sent_to, NULL::text AS kept, c.created_at AS sent_at
          FROM unnest(${sql.param(messages.map((m) => m.accountId))}::text[],
                      ${sql.param(messages.map((m) => m.messageId))}::text[]) AS u(session_id, message_id)
          JOIN wa_sent_messages c ON c.session_id = u.session_id AND c.message_id = u.message_id
          CROSS JOIN LATERAL (
            SELECT q.id FROM message_job_recipients q
            WHERE q.session_id = c.session_id AND q.chat_id = c.chat_id AND q.status = 'failed'
              AND q.message_id IS NULL AND q.error = ANY(${sql.param(DELIVERY_UNKNOWN)}::text[])
              AND q.failed_at >= c.created_at
            ORDER BY q.failed_at
            LIMIT 1
          ) x
          WHERE NOT EXISTS (SELECT 1 FROM message_job_recipients d
                            WHERE d.session_id = c.session_id AND d.message_id = c.message_id)
          ORDER BY x.id, c.created_at`,
    ),
  );
  return rows.map((r) => r.message_id);
}
