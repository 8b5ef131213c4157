import { FOLLOW_UP_SEGMENTS, type FollowUpSegment } from '@wa/contract';
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { retryableError } from '../jobs/repository.ts';

/**
 * Each segment of a job's recipients as a condition on `r` (message_job_recipients). A read
 * receipt sets `delivered_at` too (engine/receipts.ts), and a reply is counted whatever the
 * receipts said, so the first four segments do not overlap.
 */
const SEGMENT_WHERE: Record<FollowUpSegment, SQL> = {
  not_delivered: sql`r.status = 'sent' AND r.delivered_at IS NULL AND r.read_at IS NULL AND r.replied_at IS NULL`,
  delivered_not_read: sql`r.status = 'sent' AND r.delivered_at IS NOT NULL AND r.read_at IS NULL AND r.replied_at IS NULL`,
  read_not_replied: sql`r.status = 'sent' AND r.read_at IS NOT NULL AND r.replied_at IS NULL`,
  replied: sql`r.replied_at IS NOT NULL`,
  failed_retryable: sql`r.status = 'failed' AND ${retryableError(sql`r.error`)}`,
  not_replied: sql`r.status = 'sent' AND r.replied_at IS NULL`,
};

/** How many distinct chats of the job are in each segment: one scan of its recipients. */
export async function countSegments(db: Db, jobId: string): Promise<Record<FollowUpSegment, number>> {
  const columns = FOLLOW_UP_SEGMENTS.map(
    (s) => sql`count(DISTINCT r.chat_id) FILTER (WHERE ${SEGMENT_WHERE[s]})::int AS ${sql.identifier(s)}`,
  );
  const [row] = await queryRows<Record<FollowUpSegment, number>>(
    db,
    sql`SELECT ${sql.join(columns, sql`, `)} FROM message_job_recipients r WHERE r.job_id = ${jobId}`,
  );
  return Object.fromEntries(FOLLOW_UP_SEGMENTS.map((s) => [s, Number(row?.[s] ?? 0)])) as Record<
    FollowUpSegment,
    number
  >;
}

/** The chat ids of the job's recipients in `segment`, in the job's order, each once. */
export async function segmentChatIds(db: Db, jobId: string, segment: FollowUpSegment): Promise<string[]> {
  const rows = await queryRows<{ chat_id: string }>(
    db,
    sql`SELECT r.chat_id FROM message_job_recipients r
        WHERE r.job_id = ${jobId} AND ${SEGMENT_WHERE[segment]}
        GROUP BY r.chat_id ORDER BY min(r.id)`,
  );
  return rows.map((r) => r.chat_id);
}
