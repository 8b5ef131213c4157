import {
  FOLLOW_UP_TEXTS,
  type FollowUpBody,
  type FollowUpResponse,
  type FollowUpSegment,
  jidUser,
  type SegmentListResponse,
  type SegmentsResponse,
  type SendBody,
} from '@wa/contract';
import { asc, eq, sql } from 'drizzle-orm';
import { lockListsOf } from '../../contacts/list-lock.ts';
import type { AppContext } from '../../context.ts';
import { queryRows } from '../../db/client.ts';
import { contactLists, followUps } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { authorizeJob, authorizeSession } from '../../policy/access.ts';
import { findUserById, type UserRow } from '../../users/repository.ts';
import { acceptSend } from '../accept/send.ts';
import { composeSend } from '../compose.ts';
import { countSegments, segmentChatIds } from './segments.ts';

type Job = Awaited<ReturnType<typeof authorizeJob>>;

/** A one-to-one job the actor may read or act on; a group job or a Status post has no one-to-one segments. */
async function individualsJob(ctx: AppContext, user: UserRow, action: 'read' | 'act', jobId: string) {
  const job = await authorizeJob(ctx.db, user, action, jobId);
  if (job.audience !== 'individuals') throw badRequest(FOLLOW_UP_TEXTS.groupJob);
  // A Status post's audience saw one post: it was sent to no one of them in a chat.
  if (job.messageType === 'status') throw badRequest(FOLLOW_UP_TEXTS.statusJob);
  return job;
}

/** The count of each segment of the job, and its follow-ups that wait for their time. */
export async function jobSegments(ctx: AppContext, user: UserRow, jobId: string): Promise<SegmentsResponse> {
  await individualsJob(ctx, user, 'read', jobId);
  const segments = await countSegments(ctx.db, jobId);
  const rows = await ctx.db
    .select()
    .from(followUps)
    .where(eq(followUps.jobId, jobId))
    .orderBy(asc(followUps.dueAt));
  return {
    success: true,
    segments,
    scheduled: rows.map((r) => ({
      id: r.id,
      segment: r.segment as FollowUpSegment,
      dueAt: r.dueAt.toISOString(),
      state: r.state,
      jobId: r.state === 'created' ? r.id : null,
      error: r.error,
    })),
  };
}

/** The message of a follow-up as the send routes take it. */
const messageOf = (body: FollowUpBody): SendBody => ({
  type: body.type ?? null,
  content: body.content ?? null,
  mime: body.mime ?? null,
  data: body.data ?? null,
  fileName: body.fileName ?? null,
});

/**
 * A follow-up: the job's recipients in `segment` receive a new job through the send path (its
 * charge, opt-outs, consent and idempotency). With `scheduleTime`, the message is checked now
 * and the segment is taken when the time comes (createDueFollowUps).
 */
export async function followUp(
  ctx: AppContext,
  user: UserRow,
  jobId: string,
  body: FollowUpBody,
  idempotencyKey?: string,
): Promise<FollowUpResponse> {
  const job = await individualsJob(ctx, user, 'act', jobId);
  if (body.scheduleTime != null && body.scheduleTime.trim() !== '')
    return scheduleFollowUp(ctx, user, job, body);
  const chatIds = await segmentChatIds(ctx.db, jobId, body.segment);
  if (chatIds.length === 0) throw badRequest(FOLLOW_UP_TEXTS.emptySegment);
  const sent = await acceptSend(
    ctx,
    user,
    body.sessionId,
    { ...messageOf(body), chatIds },
    'individuals',
    idempotencyKey,
  );
  return {
    success: true,
    jobId: sent.jobId,
    recipients: sent.totalChats,
    ...(sent.creditsCharged !== undefined ? { creditsCharged: sent.creditsCharged } : {}),
    ...(sent.skipped ? { skipped: sent.skipped } : {}),
  };
}

async function scheduleFollowUp(
  ctx: AppContext,
  user: UserRow,
  job: Job,
  body: FollowUpBody,
): Promise<FollowUpResponse> {
  await authorizeSession(ctx.db, user, 'act', body.sessionId);
  const [first] = await queryRows<{ chat_id: string }>(
    ctx.db,
    sql`SELECT chat_id FROM message_job_recipients WHERE job_id = ${job.id} ORDER BY id LIMIT 1`,
  );
  // The message and the time are checked now, as a send checks them, with one of the job's numbers.
  const { scheduledAt } = composeSend(
    { ...messageOf(body), chatIds: [first?.chat_id ?? ''], scheduleTime: body.scheduleTime },
    'individuals',
    ctx.config.defaultCountryCode,
  );
  const id = newId();
  await ctx.db.insert(followUps).values({
    id,
    userId: job.userId,
    jobId: job.id,
    sessionId: body.sessionId,
    segment: body.segment,
    message: messageOf(body) as Record<string, unknown>,
    dueAt: scheduledAt!,
  });
  const now = await countSegments(ctx.db, job.id);
  return { success: true, jobId: id, recipients: now[body.segment], scheduledAt: scheduledAt!.toISOString() };
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
          f.sessionId,
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
      .where(eq(followUps.id, f.id));
  }
  return due.length;
}

/** The segment's numbers saved as a new contact list of the job's owner. */
export async function saveSegmentAsList(
  ctx: AppContext,
  user: UserRow,
  jobId: string,
  segment: FollowUpSegment,
  name: string,
): Promise<SegmentListResponse> {
  const job = await individualsJob(ctx, user, 'act', jobId);
  const listName = name.trim();
  if (!listName) throw badRequest(FOLLOW_UP_TEXTS.listName);
  const chatIds = await segmentChatIds(ctx.db, jobId, segment);
  if (chatIds.length === 0) throw badRequest(FOLLOW_UP_TEXTS.emptySegment);
  const numbers = [...new Set(chatIds.map(jidUser))];
  const listId = newId();
  await ctx.db.transaction(async (tx) => {
    await lockListsOf(tx, job.userId);
    await tx.insert(contactLists).values({ id: listId, userId: job.userId, name: listName, fields: [] });
    await tx.execute(
      sql`INSERT INTO contacts (list_id, position, phone_number, fields)
          SELECT ${listId}, n.i, n.phone, '{}'::jsonb
          FROM unnest(${sql.param(numbers)}::text[]) WITH ORDINALITY AS n(phone, i)`,
    );
  });
  return { success: true, listId, name: listName, imported: numbers.length };
}
