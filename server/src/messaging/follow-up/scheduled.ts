import {
  FOLLOW_UP_TEXTS,
  type FollowUpBody,
  type FollowUpResponse,
  type FollowUpSegment,
  type SendBody,
  type SuccessMessage,
} from '@wa/contract';
import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { queryRows } from '../../db/client.ts';
import { followUps } from '../../db/schema.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { authorizeAccount, authorizeJob } from '../../policy/access.ts';
import { findUserById, type UserRow } from '../../users/repository.ts';
import { acceptSend } from '../accept/send.ts';
import { composeSend, scheduleTimeOf } from '../compose.ts';
import { countSegments, segmentChatIds } from './segments.ts';

type Job = Awaited<ReturnType<typeof authorizeJob>>;

const DAY_MS = 86_400_000;

/** The message of a follow-up as the send routes take it. */
export const messageOf = (body: FollowUpBody): SendBody => ({
  type: body.type ?? null,
  content: body.content ?? null,
  mime: body.mime ?? null,
  data: body.data ?? null,
  fileName: body.fileName ?? null,
});

/**
 * When a scheduled follow-up is due: `scheduleTime`, or `afterDays` after the job is sent (its
 * scheduled time while it waits for it, else now). Null: it is sent now. A time before the job's
 * own scheduled time is refused: its segments are empty until the job is sent.
 */
export function followUpDueAt(
  job: Pick<Job, 'scheduledAt'>,
  body: FollowUpBody,
  now = new Date(),
): Date | null {
  const at = scheduleTimeOf(body.scheduleTime, now);
  if (at && body.afterDays != null) throw badRequest(FOLLOW_UP_TEXTS.bothTimes);
  const sentAt = job.scheduledAt && job.scheduledAt > now ? job.scheduledAt : now;
  if (body.afterDays != null) return new Date(sentAt.getTime() + body.afterDays * DAY_MS);
  if (at && at <= sentAt) throw badRequest(FOLLOW_UP_TEXTS.beforeJob);
  return at;
}

/**
 * A follow-up kept until `dueAt`: the message is checked now, as a send checks it with one of the
 * job's numbers; the segment is taken and charged when the time comes (createDueFollowUps).
 */
export async function scheduleFollowUp(
  ctx: AppContext,
  user: UserRow,
  job: Job,
  body: FollowUpBody,
  dueAt: Date,
): Promise<FollowUpResponse> {
  await authorizeAccount(ctx.db, user, 'act', body.sessionId);
  const [first] = await queryRows<{ chat_id: string }>(
    ctx.db,
    sql`SELECT chat_id FROM message_job_recipients WHERE job_id = ${job.id} ORDER BY id LIMIT 1`,
  );
  composeSend(
    { ...messageOf(body), chatIds: [first?.chat_id ?? ''] },
    'individuals',
    ctx.config.defaultCountryCode,
  );
  const id = newId();
  await ctx.db.insert(followUps).values({
    id,
    userId: job.userId,
    jobId: job.id,
    accountId: body.sessionId,
    segment: body.segment,
    message: messageOf(body) as Record<string, unknown>,
    dueAt,
  });
  const now = await countSegments(ctx.db, job.id);
  return { success: true, jobId: id, recipients: now[body.segment], scheduledAt: dueAt.toISOString() };
}

/**
 * Cancels a scheduled follow-up of a job the actor may act on, while it waits. Its time is
 * compared in the database as the sweep compares it: a follow-up whose time has come belongs to
 * the sweep (createDueFollowUps takes only those), so a cancel and a send never both happen.
 */
export async function cancelFollowUp(
  ctx: AppContext,
  user: UserRow,
  jobId: string,
  followUpId: string,
): Promise<SuccessMessage> {
  await authorizeJob(ctx.db, user, 'act', jobId);
  const [row] = await queryRows<{
    state: keyof typeof FOLLOW_UP_TEXTS.notWaiting | 'waiting';
    cancelled: boolean;
  }>(
    ctx.db,
    sql`WITH cancelled AS (
          UPDATE follow_ups SET state = 'cancelled'
          WHERE id = ${followUpId} AND job_id = ${jobId} AND state = 'waiting' AND due_at > now()
          RETURNING id
        )
        SELECT f.state, EXISTS (SELECT 1 FROM cancelled) AS cancelled
        FROM follow_ups f WHERE f.id = ${followUpId} AND f.job_id = ${jobId}`,
  );
  if (!row) throw notFound(FOLLOW_UP_TEXTS.notFound);
  if (!row.cancelled) throw conflict(FOLLOW_UP_TEXTS.notWaiting[row.state === 'waiting' ? 'due' : row.state]);
  return { success: true, message: FOLLOW_UP_TEXTS.cancelled };
}

/**
 * Makes the follow-ups whose time has come into jobs, the segment as it stands now (any node).
 * Each is sent with its own id as the job's id and an idempotency key of its own, so two nodes
 * (or a sweep after a crash) make one job; a follow-up the send refuses (no credits, everyone
 * opted out, nobody in the segment) is kept failed with the reason. Returns how many were taken.
 */
export async function createDueFollowUps(ctx: AppContext, max = 20): Promise<number> {
  const due = await queryRows<{ id: string }>(
    ctx.db,
    sql`SELECT id FROM follow_ups WHERE state = 'waiting' AND due_at <= now() ORDER BY due_at LIMIT ${max}`,
  );
  for (const { id } of due) {
    const [f] = await ctx.db.select().from(followUps).where(eq(followUps.id, id));
    if (f?.state !== 'waiting') continue;
    let error: string | null = null;
    try {
      const owner = await findUserById(ctx.db, f.userId);
      if (!owner) continue;
      const chatIds = await segmentChatIds(ctx.db, f.jobId, f.segment as FollowUpSegment);
      if (chatIds.length === 0) error = FOLLOW_UP_TEXTS.emptySegment;
      else
        await acceptSend(
          ctx,
          owner,
          f.accountId,
          { ...(f.message as SendBody), chatIds },
          'individuals',
          `follow-up:${f.id}`,
          f.id,
        );
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    // A job with this id exists when this node or another made it (a repeat answers the first).
    const [made] = await queryRows<{ n: number }>(
      ctx.db,
      sql`SELECT count(*)::int AS n FROM message_jobs WHERE id = ${f.id}`,
    );
    const created = Number(made?.n ?? 0) > 0;
    await ctx.db
      .update(followUps)
      .set({ state: created ? 'created' : 'failed', error: created ? null : error })
      .where(and(eq(followUps.id, f.id), eq(followUps.state, 'waiting')));
  }
  return due.length;
}
