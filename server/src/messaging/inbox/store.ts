import { type InboxState, sentText } from '@wa/contract';
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import type { InboxMediaRef } from '../../db/schema.ts';

/**
 * The Inbox's rows (db/schema.ts inbox_threads, inbox_messages): one thread per person, written
 * with each message in the same transaction, so the list never reads the messages. Every query
 * names the user: no thread or message of another user is reachable through it. Column names
 * are written qualified by hand (drizzle writes them bare, which inside a subquery binds to the
 * inner table).
 */

export type IncomingRow = {
  userId: string;
  personId: string;
  accountId: string;
  chatId: string;
  messageId: string;
  type: string;
  text: string;
  media: InboxMediaRef | null;
  jobId: string | null;
  name: string | null;
  at: Date;
};

/**
 * Keeps an incoming message and brings its thread up to date (the latest message, the account
 * last written to, one more unread, open again); false when the message was kept already (a
 * provider repeats itself: Meta delivers at least once). In the caller's transaction.
 */
export async function insertIncoming(tx: Db, m: IncomingRow): Promise<boolean> {
  const kept = await queryRows<{ id: number | string }>(
    tx,
    sql`INSERT INTO inbox_messages (user_id, person_id, session_id, direction, chat_id, message_id, type,
                                    text, media, job_id, at)
        VALUES (${m.userId}, ${m.personId}, ${m.accountId}, 'in', ${m.chatId}, ${m.messageId}, ${m.type},
                ${m.text}, ${m.media ? JSON.stringify(m.media) : null}::jsonb, ${m.jobId}, ${m.at})
        ON CONFLICT (session_id, message_id) WHERE message_id IS NOT NULL DO NOTHING
        RETURNING id`,
  );
  if (kept.length === 0) return false;
  await tx.execute(
    sql`INSERT INTO inbox_threads AS t (person_id, user_id, session_id, name, last_text, last_type,
                                        last_direction, last_at, last_in_at, unread, state)
        VALUES (${m.personId}, ${m.userId}, ${m.accountId}, ${m.name}, ${m.text}, ${m.type}, 'in',
                ${m.at}, ${m.at}, 1, 'open')
        ON CONFLICT (person_id) DO UPDATE SET
          session_id = CASE WHEN excluded.last_in_at >= t.last_in_at THEN excluded.session_id ELSE t.session_id END,
          name = coalesce(excluded.name, t.name),
          last_text = CASE WHEN excluded.last_at >= t.last_at THEN excluded.last_text ELSE t.last_text END,
          last_type = CASE WHEN excluded.last_at >= t.last_at THEN excluded.last_type ELSE t.last_type END,
          last_direction = CASE WHEN excluded.last_at >= t.last_at THEN 'in' ELSE t.last_direction END,
          last_at = greatest(t.last_at, excluded.last_at),
          last_in_at = greatest(t.last_in_at, excluded.last_in_at),
          unread = t.unread + 1,
          state = 'open'`,
  );
  return true;
}

/**
 * A message the user's account sent the person as a job of its own (an answer from the Inbox, an
 * auto-reply): kept in the thread with its job, whose recipient gives its state; it becomes the
 * thread's latest message, and the thread is read (the user answered it). Nothing when the person
 * has no thread.
 */
export async function insertAnswer(
  db: Db,
  a: { userId: string; personId: string; accountId: string; chatId: string; jobId: string; at: Date },
): Promise<void> {
  const [job] = await queryRows<{ message_type: string; content: string }>(
    db,
    sql`SELECT j.message_type, j.content FROM message_jobs j WHERE j.id = ${a.jobId} AND j.user_id = ${a.userId}`,
  );
  if (!job) return;
  await db.execute(
    sql`WITH thread AS (
          SELECT t.person_id FROM inbox_threads t WHERE t.person_id = ${a.personId} AND t.user_id = ${a.userId}
        ), kept AS (
          INSERT INTO inbox_messages (user_id, person_id, session_id, direction, chat_id, type, text, job_id, at)
          SELECT ${a.userId}, thread.person_id, ${a.accountId}, 'out', ${a.chatId}, ${job.message_type},
                 ${sentText(job.message_type, job.content)}, ${a.jobId}, ${a.at}
          FROM thread
          RETURNING type, text
        )
        UPDATE inbox_threads t SET last_text = kept.text, last_type = kept.type, last_direction = 'out',
                                   last_at = greatest(t.last_at, ${a.at}::timestamptz), unread = 0
        FROM kept WHERE t.person_id = ${a.personId} AND t.user_id = ${a.userId}`,
  );
}

export type ThreadRow = {
  person_id: string;
  user_id: string;
  session_id: string;
  name: string | null;
  contact_name: string | null;
  last_text: string;
  last_type: string;
  last_direction: 'in' | 'out';
  last_at: Date | string;
  unread: number;
  state: InboxState;
  session_kind: 'linked' | 'cloud' | null;
  addresses: string[] | null;
  window_from: Date | string | null;
  opted_out: boolean;
};

/**
 * Whether any address of the thread's person is on its user's opt-out list: a look-up per thread.
 * (Written as EXISTS, PostgreSQL hashed the whole opt-out list joined to every address instead,
 * 90 ms of a 1,00,000-thread inbox's first page.)
 */
const optedOut = sql`coalesce((
  SELECT true FROM person_addresses pa
  JOIN opt_outs o ON o.user_id = pa.user_id AND o.address_kind = pa.kind AND o.phone_number = pa.value
  WHERE pa.person_id = t.person_id LIMIT 1), false)`;

/** The columns a thread is shown with: its row, and for the page only, its person's addresses, name, window and opt-out. */
const threadColumns = sql`t.person_id, t.user_id, t.session_id, t.name, t.last_text, t.last_type, t.last_direction,
  t.last_at, t.unread, t.state, s.kind AS session_kind,
  (SELECT array_agg(pa.kind || ':' || pa.value ORDER BY pa.kind, pa.value) FROM person_addresses pa
    WHERE pa.person_id = t.person_id) AS addresses,
  (SELECT c.fields->>'name' FROM contact_lists l
     JOIN contacts c ON c.list_id = l.id
     JOIN person_addresses pa ON pa.person_id = t.person_id AND pa.kind = 'phone' AND pa.value = c.phone_number
    WHERE l.user_id = t.user_id AND coalesce(c.fields->>'name', '') <> ''
    ORDER BY l.created_at LIMIT 1) AS contact_name,
  (SELECT max(w.last_inbound_at) FROM cloud_service_windows w
     JOIN person_addresses pa ON pa.person_id = t.person_id AND pa.value = w.phone
    WHERE w.session_id = t.session_id) AS window_from,
  ${optedOut} AS opted_out`;

export type ThreadFilter = {
  accountId?: string;
  jobId?: string;
  state?: 'unread' | 'open' | 'done';
  needsReply?: boolean;
  optedOut?: boolean;
  q?: string;
  after?: { at: Date; personId: string };
  limit: number;
};

/** A LIKE pattern that finds `text` anywhere, its wildcards taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A page of the user's threads, newest first (keyset on last_at, person_id). NULLS LAST as the
 * index has it: `DESC` alone means NULLS FIRST, which the index does not answer in order (the
 * columns are never null, but the planner does not know that), and every thread was sorted.
 */
export async function listThreads(db: Db, userId: string, f: ThreadFilter): Promise<ThreadRow[]> {
  const where: SQL[] = [sql`t.user_id = ${userId}`];
  if (f.after)
    where.push(
      sql`(t.last_at, t.person_id) < (${f.after.at.toISOString()}::timestamptz, ${f.after.personId})`,
    );
  if (f.state === 'unread') where.push(sql`t.unread > 0`);
  else if (f.state) where.push(sql`t.state = ${f.state}`);
  if (f.needsReply !== undefined) where.push(sql`t.last_direction = ${f.needsReply ? 'in' : 'out'}`);
  if (f.optedOut !== undefined) where.push(f.optedOut ? optedOut : sql`NOT ${optedOut}`);
  if (f.accountId)
    where.push(sql`EXISTS (SELECT 1 FROM inbox_messages m WHERE m.person_id = t.person_id
                           AND m.session_id = ${f.accountId} AND m.direction = 'in')`);
  if (f.jobId)
    where.push(sql`t.person_id IN (SELECT m.person_id FROM inbox_messages m
                                   WHERE m.user_id = ${userId} AND m.job_id = ${f.jobId} AND m.direction = 'in')`);
  const q = f.q?.trim();
  if (q) {
    const digits = q.replace(/[\s()+-]/g, '');
    const byAddress = /^[0-9]+$/.test(digits) ? containing(digits) : containing(q.replace(/^@/, ''));
    where.push(sql`(t.name ILIKE ${containing(q)}
      OR EXISTS (SELECT 1 FROM person_addresses pa WHERE pa.person_id = t.person_id AND pa.value ILIKE ${byAddress})
      OR EXISTS (SELECT 1 FROM contact_lists l JOIN contacts c ON c.list_id = l.id
                   JOIN person_addresses pa ON pa.person_id = t.person_id AND pa.kind = 'phone' AND pa.value = c.phone_number
                 WHERE l.user_id = t.user_id AND c.fields->>'name' ILIKE ${containing(q)}))`);
  }
  return queryRows<ThreadRow>(
    db,
    sql`SELECT ${threadColumns}
        FROM inbox_threads t LEFT JOIN wa_sessions s ON s.session_id = t.session_id
        WHERE ${sql.join(where, sql` AND `)}
        ORDER BY t.last_at DESC NULLS LAST, t.person_id DESC NULLS LAST
        LIMIT ${f.limit}`,
  );
}

/** One thread of the user's, or of any user when `userId` is null (the caller checks who owns it). */
export async function findThread(
  db: Db,
  personId: string,
  userId: string | null,
): Promise<ThreadRow | undefined> {
  const [row] = await queryRows<ThreadRow>(
    db,
    sql`SELECT ${threadColumns}
        FROM inbox_threads t LEFT JOIN wa_sessions s ON s.session_id = t.session_id
        WHERE t.person_id = ${personId} ${userId === null ? sql`` : sql`AND t.user_id = ${userId}`}`,
  );
  return row;
}

/** How many of the user's threads have messages the user has not opened. */
export async function countUnread(db: Db, userId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM inbox_threads t WHERE t.user_id = ${userId} AND t.unread > 0`,
  );
  return row?.n ?? 0;
}

export async function markRead(db: Db, userId: string, personId: string): Promise<void> {
  await db.execute(
    sql`UPDATE inbox_threads t SET unread = 0
        WHERE t.person_id = ${personId} AND t.user_id = ${userId} AND t.unread > 0`,
  );
}

export async function setState(db: Db, userId: string, personId: string, state: InboxState): Promise<void> {
  await db.execute(
    sql`UPDATE inbox_threads t SET state = ${state} WHERE t.person_id = ${personId} AND t.user_id = ${userId}`,
  );
}

export type MessageRow = {
  id: string;
  direction: 'in' | 'out';
  session_id: string;
  at: Date | string;
  type: string;
  text: string;
  media: InboxMediaRef | null;
  job_id: string | null;
  status: string | null;
};

/** The most messages a thread shows: its latest, of each source. */
export const THREAD_MESSAGES_MAX = 500;

/** A recipient's state as a thread shows it: read, delivered, or its status (queued, sent, failed, …). */
const recipientState = (r: string) =>
  sql.raw(
    `CASE WHEN ${r}.read_at IS NOT NULL THEN 'read' WHEN ${r}.delivered_at IS NOT NULL AND ${r}.status = 'sent' THEN 'delivered' ELSE ${r}.status END`,
  );

/**
 * A thread's messages, oldest first: those kept in the Inbox (the person's, and the answers with
 * their recipients' state), and the user's other jobs' messages that reached any of the person's
 * `chatIds` from the user's accounts (read through the recipients' index of sent messages).
 */
export async function threadMessages(
  db: Db,
  userId: string,
  personId: string,
  chatIds: string[],
): Promise<MessageRow[]> {
  const kept = await queryRows<MessageRow>(
    db,
    sql`SELECT m.id::text AS id, m.direction, m.session_id, m.at, m.type, m.text, m.media, m.job_id,
               CASE WHEN m.direction = 'out' THEN
                 (SELECT ${recipientState('r')} FROM message_job_recipients r WHERE r.job_id = m.job_id ORDER BY r.id LIMIT 1)
               END AS status
        FROM inbox_messages m
        WHERE m.person_id = ${personId} AND m.user_id = ${userId}
        ORDER BY m.at DESC, m.id DESC LIMIT ${THREAD_MESSAGES_MAX}`,
  );
  const answers = kept.flatMap((m) => (m.direction === 'out' && m.job_id ? [m.job_id] : []));
  const sent =
    chatIds.length === 0
      ? []
      : await queryRows<Omit<MessageRow, 'text'> & { job_content: string; own_content: string | null }>(
          db,
          sql`SELECT 'job:' || r.id AS id, 'out' AS direction, r.session_id, r.sent_at AS at,
                     j.message_type AS type, j.content AS job_content, r.content AS own_content,
                     NULL::jsonb AS media, r.job_id, ${recipientState('r')} AS status
              FROM message_job_recipients r JOIN message_jobs j ON j.id = r.job_id
              WHERE r.session_id IN (SELECT ws.session_id FROM wa_sessions ws WHERE ws.user_id = ${userId})
                AND r.status = 'sent' AND r.chat_id = ANY(${sql.param(chatIds)}::text[])
                AND j.user_id = ${userId} AND j.audience = 'individuals'
                AND NOT (r.job_id = ANY(${sql.param(answers)}::text[]))
              ORDER BY r.sent_at DESC LIMIT ${THREAD_MESSAGES_MAX}`,
        );
  const shown = sent.map(({ job_content, own_content, ...m }) => ({
    ...m,
    text: sentText(m.type, job_content, own_content),
  }));
  // Oldest first; both lists came newest first, and the sort is stable: two messages of one second
  // (WhatsApp's unit of time) show in the order they were kept.
  return [...kept.reverse(), ...shown.reverse()].sort(
    (a, b) => new Date(a.at).getTime() - new Date(b.at).getTime(),
  );
}

/** An incoming message's file reference, of the user's thread `personId`. */
export async function findMedia(
  db: Db,
  userId: string,
  personId: string,
  id: string,
): Promise<{ session_id: string; media: InboxMediaRef } | undefined> {
  if (!/^[0-9]{1,18}$/.test(id)) return undefined;
  const [row] = await queryRows<{ session_id: string; media: InboxMediaRef | null }>(
    db,
    sql`SELECT m.session_id, m.media FROM inbox_messages m
        WHERE m.id = ${id}::bigint AND m.person_id = ${personId} AND m.user_id = ${userId}`,
  );
  return row?.media ? { session_id: row.session_id, media: row.media } : undefined;
}

/** The address the person last wrote to the account from (a chat id), if they did. */
export async function lastChatFrom(
  db: Db,
  userId: string,
  personId: string,
  accountId: string,
): Promise<string | null> {
  const [row] = await queryRows<{ chat_id: string }>(
    db,
    sql`SELECT m.chat_id FROM inbox_messages m
        WHERE m.person_id = ${personId} AND m.user_id = ${userId} AND m.session_id = ${accountId} AND m.direction = 'in'
        ORDER BY m.at DESC LIMIT 1`,
  );
  return row?.chat_id ?? null;
}
