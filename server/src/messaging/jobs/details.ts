import type { JobDetailsQuery, JobDetailsResponse } from '@wa/contract';
import { knownOfChatIds } from '../../contacts/people.ts';
import type { AppContext } from '../../context.ts';
import { authorizeJob } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { presentJob, presentRecipient } from '../jobs/present.ts';
import * as repo from '../jobs/repository.ts';

import { holdsOfJobs, seriesOfJobs } from './list.ts';
export const DEFAULT_DETAILS_LIMIT = 1000;

export async function jobDetails(
  ctx: AppContext,
  viewer: UserRow,
  jobId: string,
  query: JobDetailsQuery = {},
): Promise<JobDetailsResponse> {
  const job = await authorizeJob(ctx.db, viewer, 'read', jobId);
  const recipients = await repo.jobRecipients(
    ctx.db,
    jobId,
    query.detailsLimit ?? DEFAULT_DETAILS_LIMIT,
    query.detailsOffset ?? 0,
  );
  const known = await knownOfChatIds(
    ctx.db,
    job.userId,
    recipients.map((r) => r.chatId),
  );
  let mediaData: string | null = null;
  if (job.mediaId && query.media !== '0') {
    const file = await repo.findMedia(ctx.db, job.mediaId);
    mediaData = file ? file.bytes.toString('base64') : null;
  }
  return {
    success: true,
    job: {
      ...presentJob(job, new Date(), await holdsOfJobs(ctx, [job]), await seriesOfJobs(ctx, [job])),
      mediaData,
      details: recipients.map((r) => presentRecipient(r, known.get(r.chatId))),
      detailsTotal: job.total,
      ...(job.messageType === 'template' ? { costUnits: await repo.jobCostUnits(ctx.db, jobId) } : {}),
    },
    message: 'Job details fetched successfully',
  };
}
