import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { media, messageJobs } from '../../db/schema.ts';

/** What accepting a send writes: its file, its job, its recipients; and the balance it reads. */

/** Stores a file once: the id is its sha256, so a second job with the same file reuses the row. */
export async function storeMedia(db: Db, file: { id: string; mime: string; bytes: Buffer }): Promise<void> {
  await db
    .insert(media)
    .values({ id: file.id, mime: file.mime, size: file.bytes.length, bytes: file.bytes })
    .onConflictDoNothing({ target: media.id });
}

/**
 * Inserts a job; a poll job gets its own message secret (schema.ts `pollSecret`): one per job, as
 * each recipient's vote key is still their own (derived with the message's id and both addresses:
 * rc14 Utils/process-message.js decryptPollVote).
 */
export async function insertJob(db: Db, values: typeof messageJobs.$inferInsert): Promise<void> {
  const pollSecret = values.messageType === 'poll' ? (values.pollSecret ?? randomBytes(32)) : null;
  await db.insert(messageJobs).values({ ...values, pollSecret });
}

/**
 * Inserts every recipient of a job in one `INSERT ... SELECT unnest(...)` statement: a
 * `.values()` of 100k rows would pass the 65,535 bind-parameter limit (STACK.md). `job.price`:
 * the credits each recipient was charged, or each one's own (`number[]`, a spread over kinds).
 * `chatNames`: null when no recipient has a name (numbers: each is its own).
 * `accountOf`: each recipient's account when the job is spread over several (else the job's account).
 */
export async function insertRecipients(
  db: Db,
  job: { jobId: string; accountId: string; dueAt: Date; price: number | number[] },
  chatIds: string[],
  chatNames: Array<string | null> | null,
  contents: string[] | null = null,
  accountOf: string[] | null = null,
): Promise<void> {
  // unnest in the select list, side by side (its arrays in step), streams the rows into the
  // insert; unnest in FROM first stored them all in a tuplestore, written to a temp file past
  // work_mem (15 % of a 1,000,000-row insert).
  const columns = [sql`unnest(${textArray(chatIds)}) AS chat_id`];
  if (chatNames !== null) columns.push(sql`unnest(${sql.param(chatNames)}::text[]) AS chat_name`);
  if (contents !== null) columns.push(sql`unnest(${textArray(contents)}) AS content`);
  if (accountOf !== null) columns.push(sql`unnest(${sql.param(accountOf)}::text[]) AS session_id`);
  if (Array.isArray(job.price)) columns.push(sql`unnest(${sql.param(job.price)}::int[]) AS price`);
  const account = accountOf ? sql`coalesce(c.session_id, ${job.accountId})` : sql`${job.accountId}`;
  const price = Array.isArray(job.price) ? sql`c.price` : sql`${job.price}::int`;
  const content = contents === null ? sql`NULL` : sql`c.content`;
  const chatName = chatNames === null ? sql`NULL` : sql`c.chat_name`;
  await db.execute(
    sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, chat_name, content, price, due_at)
        SELECT ${job.jobId}, ${account}, c.chat_id, ${chatName}, ${content}, ${price}, ${job.dueAt}::timestamptz
        FROM (SELECT ${sql.join(columns, sql`, `)}) AS c`,
  );
}

/** A character no chat id holds (a JID, a business-scoped user id) and typed text seldom does. */
const SEPARATOR = '\u001f';

/**
 * `values` as a `text[]` expression: one text of them joined by `SEPARATOR`, split again by
 * PostgreSQL's `string_to_array`. An array parameter is written by node-postgres as an array
 * literal, each element quoted and escaped, which PostgreSQL then parses back: for 1,00,000 chat
 * ids a round trip of about 60 ms, against about 22 ms for the joined text (a `SELECT` of their
 * lengths, PostgreSQL 15 on this 2-core machine). The array parameter stays for lists the split
 * would not give back whole: a value holding the separator, or an empty one (`string_to_array`
 * of '' is no element, not one empty one).
 */
function textArray(values: string[]) {
  for (const v of values) if (v === '' || v.includes(SEPARATOR)) return sql`${sql.param(values)}::text[]`;
  return sql`string_to_array(${values.join(SEPARATOR)}::text, ${SEPARATOR}::text)`;
}

/** The user's balance now (read inside the caller's transaction). */
export async function creditsOf(db: Db, userId: string): Promise<number> {
  const [row] = await queryRows<{ credits: string }>(
    db,
    sql`SELECT credits::text AS credits FROM users WHERE id = ${userId}`,
  );
  return Number(row?.credits ?? 0);
}
