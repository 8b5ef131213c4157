import {
  FOLLOW_UP_TEXTS,
  type FollowUpBody,
  type FollowUpResponse,
  type FollowUpSegment,
  jidUser,
  type SegmentListResponse,
  type SegmentsResponse,
} from '@wa/contract';
import { asc, eq, sql } from 'drizzle-orm';
import { lockListsOf } from '../../contacts/list-lock.ts';
import type { AppContext } from '../../context.ts';
import { queryRows } from '../../db/client.ts';
import { contactLists, followUps } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { authorizeJob } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { acceptSend } from '../accept/send.ts';
import { followUpDueAt, messageOf, scheduleFollowUp } from './scheduled.ts';
import { countSegments, segmentChatIds } from './segments.ts';

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

/**
 * A follow-up: the job's recipients in `segment` receive a new job through the send path (its
 * charge, opt-outs, consent and idempotency). With `scheduleTime` or `afterDays`, the message is
 * checked now and the segment is taken when the time comes (createDueFollowUps).
 */
export async function followUp(
  ctx: AppContext,
  user: UserRow,
  jobId: string,
  body: FollowUpBody,
  idempotencyKey?: string,
): Promise<FollowUpResponse> {
  const job = await individualsJob(ctx, user, 'act', jobId);
  const dueAt = followUpDueAt(job, body);
  if (dueAt) return scheduleFollowUp(ctx, user, job, body, dueAt);
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
