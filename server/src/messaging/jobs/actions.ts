import { setTimeout as sleep } from 'node:timers/promises';
import { isPausable, type RetryResponse } from '@wa/contract';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { debitCredits } from '../../credits/credits.ts';
import { priceOfKind, readCreditPrices } from '../../credits/prices.ts';
import { queryRows } from '../../db/client.ts';
import { badRequest, MESSAGES, notFound, paymentRequired } from '../../errors.ts';
import { authorizeAccount, authorizeJob } from '../../policy/access.ts';
import { signal } from '../../signals.ts';
import type { UserRow } from '../../users/repository.ts';
import { assertOwnerMaySend } from '../engine/rules.ts';
import * as transitions from '../engine/transitions.ts';
import * as repo from '../jobs/repository.ts';
import { JOB_MESSAGES } from '../messages.ts';
import { cancelSeriesRow } from '../series/repository.ts';

/**
 * Queues the failed recipients of a job again, after reserving their credits, on the given
 * account (one of the user's) or the job's own. Owner only.
 */
export async function retryJob(
  ctx: AppContext,
  user: UserRow,
  jobId: string,
  accountId: string | undefined,
  includeDeliveryUnknown = false,
): Promise<RetryResponse> {
  const job = await authorizeJob(ctx.db, user, 'act', jobId);
  // The flag is read again: an admin may have revoked it since the job was accepted.
  assertOwnerMaySend(user, job.audience);
  const target = accountId?.trim() || job.accountId;
  const account = await authorizeAccount(ctx.db, user, 'act', target, MESSAGES.noSession);
  // Each recipient is charged again at the price of the account that sends it now.
  const price = priceOfKind(await readCreditPrices(ctx.db), account.kind);
  const retried = await ctx.db.transaction(async (tx) => {
    const locked = await repo.lockJob(tx, jobId);
    if (!locked) throw notFound(JOB_MESSAGES.jobNotFound);
    // Only failures a retry may fix are queued and charged: 'Not on WhatsApp' would fail again.
    // Those whose delivery is unknown may have arrived: only when the user accepts a second copy.
    const only = includeDeliveryUnknown
      ? repo.retryableError(sql`error`)
      : sql`(${repo.retryableError(sql`error`)} AND NOT ${repo.deliveryUnknownError(sql`error`)})`;
    const { failed, retryable } = await repo.countFailedAndRetryable(tx, jobId, only);
    // A template job over both kinds: a phone's recipient holds the template's text, a Cloud
    // one its values; neither may be sent by the other kind.
    if (locked.messageType === 'template') {
      const [other] = await queryRows<{ n: number }>(
        tx,
        sql`SELECT count(*)::int AS n FROM message_job_recipients r JOIN wa_sessions s ON s.session_id = r.session_id
            WHERE r.job_id = ${jobId} AND r.status = 'failed' AND ${only} AND s.kind <> ${account.kind}`,
      );
      if ((other?.n ?? 0) > 0) throw badRequest(JOB_MESSAGES.retryOtherKind);
    }
    if (failed === 0) throw badRequest(JOB_MESSAGES.nothingToRetry);
    if (retryable === 0 && !includeDeliveryUnknown) {
      const { retryable: unknown } = await repo.countFailedAndRetryable(
        tx,
        jobId,
        repo.deliveryUnknownError(sql`error`),
      );
      if (unknown > 0) throw badRequest(JOB_MESSAGES.deliveryUnknownOnly(unknown));
    }
    if (retryable === 0) throw badRequest(JOB_MESSAGES.nothingRetryable);
    const balance = await debitCredits(tx, user.id, retryable * price, 'retry', { jobId, actorId: user.id });
    if (balance === null) throw paymentRequired(MESSAGES.creditShort);
    const requeued = await transitions.requeue(tx, jobId, target, price, only);
    // The job row is locked and the dispatcher never changes failed recipients, so both counts agree.
    if (requeued !== retryable)
      throw new Error(`retry of job ${jobId}: ${requeued} requeued, ${retryable} charged`);
    return requeued;
  });
  await signal(ctx, 'recipients-queued', target);
  return {
    success: true,
    message: `Retrying ${retried} failed ${retried === 1 ? 'message' : 'messages'}`,
    retried,
    creditsCharged: retried * price,
  };
}

/** How long a pause waits for the message in flight to be recorded before it answers. */
const PAUSE_IN_FLIGHT_WAIT_MS = 30_000;

/**
 * Pauses a running or scheduled job (owner only): nothing more of it is claimed. The answer
 * comes once the message in flight, if any, has been recorded, so nothing is sent after it.
 */
export async function pauseJob(ctx: AppContext, user: UserRow, jobId: string): Promise<void> {
  await authorizeJob(ctx.db, user, 'act', jobId);
  await ctx.db.transaction(async (tx) => {
    const locked = await repo.lockJob(tx, jobId);
    if (!locked) throw notFound(JOB_MESSAGES.jobNotFound);
    if (!isPausable(locked.status)) throw badRequest(JOB_MESSAGES.notPausable);
    await transitions.pause(tx, jobId);
  });
  const until = Date.now() + PAUSE_IN_FLIGHT_WAIT_MS;
  while ((await repo.inFlight(ctx.db, jobId)).live > 0 && Date.now() < until) await sleep(50);
}

/** Resumes a paused job (owner only): its recipients are queued again where they were. */
export async function resumeJob(ctx: AppContext, user: UserRow, jobId: string): Promise<void> {
  await authorizeJob(ctx.db, user, 'act', jobId);
  const accounts = await ctx.db.transaction(async (tx) => {
    const locked = await repo.lockJob(tx, jobId);
    if (!locked) throw notFound(JOB_MESSAGES.jobNotFound);
    if (locked.status !== 'paused') throw badRequest(JOB_MESSAGES.notResumable);
    return transitions.resume(tx, jobId);
  });
  for (const accountId of accounts) await signal(ctx, 'recipients-queued', accountId);
}

/**
 * Deletes a job in any status: cancels (and refunds) what is unsent, waits for a send in flight
 * to be recorded (or declares it unknown when its lease ran out), then deletes the job and its
 * recipients. The ledger keeps its rows. Owner only.
 */
export async function deleteJob(ctx: AppContext, user: UserRow, jobId: string): Promise<void> {
  const job = await authorizeJob(ctx.db, user, 'act', jobId);
  const pollMs = 50;
  for (;;) {
    const done = await ctx.db.transaction(async (tx) => {
      const locked = await repo.lockJob(tx, jobId);
      if (!locked) return true;
      // The occurrence of a series awaiting its start is the series' future: deleting it ends the series.
      if (locked.awaitingStart && locked.seriesId) {
        for (const id of await cancelSeriesRow(tx, locked.seriesId)) await repo.deleteJobRow(tx, id);
        return true;
      }
      await transitions.cancel(tx, jobId);
      const flight = await repo.inFlight(tx, jobId);
      if (flight.live > 0) return false;
      if (flight.expired > 0) await transitions.expire(tx, { jobId });
      await repo.deleteJobRow(tx, jobId);
      return true;
    });
    if (done) break;
    await sleep(pollMs);
  }
  if (job.mediaId) {
    // A concurrent send of the same file may have just referred to it: then it stays.
    await repo.deleteOrphanMedia(ctx.db, job.mediaId).catch(() => {});
  }
}

/**
 * An admin disabled the user or revoked their bulk flag: what waits to be sent and may no longer
 * be (everything, or the individual sends) fails with the reason and is refunded at once. The
 * claim skips such recipients too, so a send racing this change is the only one that can finish.
 * Failed, not cancelled: after the account is enabled again the owner can retry them.
 */
export async function failForbiddenWaiting(ctx: AppContext, userId: string): Promise<number> {
  const groups = await transitions.failForbidden(ctx.db, userId);
  return groups.reduce((sum, g) => sum + g.count, 0);
}
