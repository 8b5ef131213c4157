import { RESCHEDULE_TEXTS, type RescheduleJobBody, SEND_TEXTS, type SuccessMessage } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict } from '../../errors.ts';
import { authorizeJob } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { scheduleTimeOf } from '../compose.ts';
import * as transitions from '../engine/transitions.ts';
import { lockJob } from './repository.ts';

/**
 * Moves a scheduled job that has not started to a later time (owner only). Its credits were
 * reserved when it was accepted and stay as they are: the recipients do not change. The job row
 * is locked first (the jobs API's lock order), so a pause or delete of it waits.
 */
export async function rescheduleJob(
  ctx: AppContext,
  user: UserRow,
  jobId: string,
  body: RescheduleJobBody,
): Promise<SuccessMessage> {
  const job = await authorizeJob(ctx.db, user, 'act', jobId);
  const at = scheduleTimeOf(body.scheduleTime);
  if (!at) throw badRequest(SEND_TEXTS.badScheduleTime);
  if (job.seriesId) throw badRequest(RESCHEDULE_TEXTS.series);
  const moved = await ctx.db.transaction(
    async (tx) => (await lockJob(tx, job.id)) !== undefined && transitions.reschedule(tx, job.id, at),
  );
  if (!moved) throw conflict(RESCHEDULE_TEXTS.notScheduled);
  return { success: true, message: RESCHEDULE_TEXTS.moved(at.toISOString()) };
}
