import type { RetryableResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { authorizeUser } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { countRetryable } from './repository.ts';

const MAX_JOBS = 200;

/**
 * Of the given jobs of `userId`, how many failed recipients a retry may fix: failures
 * such as 'Not on WhatsApp' fail again, so the web app offers Retry Failed only when this is
 * above 0. Jobs of other users are left out (absent from the answer).
 */
export async function retryableFailures(
  ctx: AppContext,
  viewer: UserRow,
  userId: string,
  jobIdsText: string,
): Promise<RetryableResponse> {
  await authorizeUser(ctx.db, viewer, 'read', userId);
  const jobIds = [...new Set(jobIdsText.split(',').map((s) => s.trim()))].filter(Boolean);
  if (jobIds.length > MAX_JOBS) throw badRequest(`At most ${MAX_JOBS} job ids at once`);
  if (jobIds.length === 0) return { success: true, retryable: {} };
  return { success: true, retryable: await countRetryable(ctx.db, userId, jobIds) };
}
