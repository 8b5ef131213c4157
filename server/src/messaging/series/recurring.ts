import { REPEAT_TEXTS, type RepeatEvery, type SendBody, type SuccessMessage } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { authorizeJob } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import * as repo from '../jobs/repository.ts';
import * as series from './repository.ts';

/**
 * Repeating sends. A series keeps the recipients (rendered at acceptance) and
 * the rhythm; each occurrence is its own job. The next occurrence exists as a scheduled job
 * awaiting its start (nothing reserved, no recipients); the dispatcher's sweep starts it when its
 * time comes (occurrences.ts). Here: what the API does with a series.
 */

export type Repeat = { every: RepeatEvery; until: Date | null };

/** The send's `repeat`, checked against its schedule time (null when it does not repeat). */
export function repeatOf(body: SendBody, scheduledAt: Date | null): Repeat | null {
  if (!body.repeat) return null;
  if (!scheduledAt) throw badRequest(REPEAT_TEXTS.needsSchedule);
  let until: Date | null = null;
  if (body.repeat.until != null && body.repeat.until.trim() !== '') {
    until = new Date(body.repeat.until);
    if (Number.isNaN(until.getTime()) || until.getTime() < scheduledAt.getTime())
      throw badRequest(REPEAT_TEXTS.badUntil);
  }
  return { every: body.repeat.every, until };
}

/**
 * Cancels the series of a job (owner only): no more occurrences start; the one awaiting its start
 * is deleted (nothing was reserved for it). Occurrences that started go on.
 */
export async function cancelSeries(ctx: AppContext, user: UserRow, jobId: string): Promise<SuccessMessage> {
  const job = await authorizeJob(ctx.db, user, 'act', jobId);
  if (!job.seriesId) throw badRequest(REPEAT_TEXTS.notSeries);
  const seriesId = job.seriesId;
  await ctx.db.transaction(async (tx) => {
    for (const id of await series.cancelSeriesRow(tx, seriesId)) await repo.deleteJobRow(tx, id);
  });
  if (job.mediaId) await repo.deleteOrphanMedia(ctx.db, job.mediaId).catch(() => {});
  return { success: true, message: REPEAT_TEXTS.seriesCancelled };
}
