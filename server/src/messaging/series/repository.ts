import { eq, inArray, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { messageJobSeries, messageJobs } from '../../db/schema.ts';
import type { JobRow } from '../jobs/repository.ts';

/** The queries of repeating sends (series): their rows, their occurrences awaiting start. */

export type SeriesRow = typeof messageJobSeries.$inferSelect;

export async function insertSeries(db: Db, values: typeof messageJobSeries.$inferInsert): Promise<void> {
  await db.insert(messageJobSeries).values(values);
}

/**
 * The user's series still running, counted with the user's row locked: two repeating sends of
 * one user accepted at once are counted one after the other.
 */
export async function countActiveSeries(db: Db, userId: string): Promise<number> {
  await db.execute(sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`);
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM message_job_series WHERE user_id = ${userId} AND ended_at IS NULL`,
  );
  return row?.n ?? 0;
}

export async function lockSeries(db: Db, seriesId: string): Promise<SeriesRow | undefined> {
  const [row] = await db
    .select()
    .from(messageJobSeries)
    .where(eq(messageJobSeries.id, seriesId))
    .for('update');
  return row;
}

/** The series of these ids (for the jobs list), by id. */
export async function seriesByIds(db: Db, ids: string[]): Promise<Map<string, SeriesRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({
      id: messageJobSeries.id,
      every: messageJobSeries.every,
      until: messageJobSeries.until,
      endedAt: messageJobSeries.endedAt,
    })
    .from(messageJobSeries)
    .where(inArray(messageJobSeries.id, ids));
  return new Map(rows.map((r) => [r.id, r as SeriesRow]));
}

/**
 * Takes the next occurrence whose time has come (locked, skipped by other nodes): a paused one
 * waits for its resume.
 */
export async function claimDueOccurrence(db: Db): Promise<JobRow | undefined> {
  const [row] = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM message_jobs
        WHERE awaiting_start AND status IN ('scheduled', 'pending') AND scheduled_at <= now()
        ORDER BY scheduled_at LIMIT 1
        FOR UPDATE SKIP LOCKED`,
  );
  if (!row) return undefined;
  const [job] = await db.select().from(messageJobs).where(eq(messageJobs.id, row.id));
  return job;
}

/** Inserts an occurrence's recipients at once: queued and due now, or failed with `error`. */
export async function insertOccurrenceRecipients(
  db: Db,
  job: { jobId: string; accountId: string; price: number },
  chatIds: string[],
  chatNames: Array<string | null>,
  contents: Array<string | null> | null,
  error: string | null,
): Promise<void> {
  await db.execute(
    sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, chat_name, content, price, status, error, failed_at, due_at)
        SELECT ${job.jobId}, ${job.accountId}, c.chat_id, c.chat_name, c.content, ${job.price}::int,
               ${error === null ? 'queued' : 'failed'}, ${error}, ${error === null ? null : sql`now()`}, now()
        FROM unnest(${sql.param(chatIds)}::text[], ${sql.param(chatNames)}::text[],
                    ${sql.param(contents ?? chatIds.map(() => null))}::text[]) AS c(chat_id, chat_name, content)`,
  );
}

export async function countStarted(db: Db, seriesId: string): Promise<void> {
  await db.execute(sql`UPDATE message_job_series SET started = started + 1 WHERE id = ${seriesId}`);
}

/**
 * Ends a series: no occurrence starts any more. Returns its occurrences that were awaiting start
 * (locked, for the caller to delete). Lock order as the sweep's: those jobs, then the series; an
 * occurrence the sweep added meanwhile is read after the series lock.
 */
export async function cancelSeriesRow(db: Db, seriesId: string): Promise<string[]> {
  const awaiting = sql`SELECT id FROM message_jobs WHERE series_id = ${seriesId} AND awaiting_start
                       ORDER BY id FOR UPDATE`;
  await db.execute(awaiting);
  await db.execute(
    sql`UPDATE message_job_series SET ended_at = coalesce(ended_at, now()) WHERE id = ${seriesId}`,
  );
  const rows = await queryRows<{ id: string }>(db, awaiting);
  return rows.map((r) => r.id);
}

/** No occurrence comes after the last one started (the next would pass `until`). */
export async function endSeries(db: Db, seriesId: string): Promise<void> {
  await db.execute(
    sql`UPDATE message_job_series SET ended_at = coalesce(ended_at, now()) WHERE id = ${seriesId}`,
  );
}
