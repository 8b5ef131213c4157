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

export async function insertJob(db: Db, values: typeof messageJobs.$inferInsert): Promise<void> {
  await db.insert(messageJobs).values(values);
}

/**
 * Inserts every recipient of a job in one `INSERT ... SELECT FROM unnest(...)` statement: a
 * `.values()` of 100k rows would pass the 65,535 bind-parameter limit (STACK.md). `sessionOf`:
 * each recipient's account when the job is spread over several (else the job's session).
 */
export async function insertRecipients(
  db: Db,
  job: { jobId: string; sessionId: string; dueAt: Date },
  chatIds: string[],
  chatNames: Array<string | null>,
  contents: string[] | null = null,
  sessionOf: string[] | null = null,
): Promise<void> {
  const session = sessionOf ? sql`coalesce(c.session_id, ${job.sessionId})` : sql`${job.sessionId}`;
  const sessions = sessionOf ? sql`, ${sql.param(sessionOf)}::text[]` : sql``;
  const sessionColumn = sessionOf ? sql`, session_id` : sql``;
  if (contents === null) {
    await db.execute(
      sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, chat_name, due_at)
          SELECT ${job.jobId}, ${session}, c.chat_id, c.chat_name, ${job.dueAt}::timestamptz
          FROM unnest(${sql.param(chatIds)}::text[], ${sql.param(chatNames)}::text[]${sessions})
            AS c(chat_id, chat_name${sessionColumn})`,
    );
    return;
  }
  await db.execute(
    sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, chat_name, content, due_at)
        SELECT ${job.jobId}, ${session}, c.chat_id, c.chat_name, c.content, ${job.dueAt}::timestamptz
        FROM unnest(${sql.param(chatIds)}::text[], ${sql.param(chatNames)}::text[], ${sql.param(contents)}::text[]${sessions})
          AS c(chat_id, chat_name, content${sessionColumn})`,
  );
}

/** The user's balance now (read inside the caller's transaction). */
export async function creditsOf(db: Db, userId: string): Promise<number> {
  const [row] = await queryRows<{ credits: string }>(
    db,
    sql`SELECT credits::text AS credits FROM users WHERE id = ${userId}`,
  );
  return Number(row?.credits ?? 0);
}
