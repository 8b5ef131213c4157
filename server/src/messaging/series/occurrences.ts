import type { AccountKind, RepeatEvery } from '@wa/contract';
import { isErasedChatId, jidUser } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { leftOutOfSend } from '../../contacts/left-out.ts';
import type { AppContext } from '../../context.ts';
import { debitCredits } from '../../credits/credits.ts';
import { readCreditPrices } from '../../credits/prices.ts';
import { queryRows } from '../../db/client.ts';
import { MESSAGES } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { signal } from '../../signals.ts';
import { insertJob } from '../accept/repository.ts';
import { startOccurrence } from '../engine/transitions.ts';
import { JOB_MESSAGES } from '../messages.ts';
import * as series from './repository.ts';

/**
 * The engine's side of repeating sends: when an occurrence's time comes, the
 * dispatcher's sweep reserves its credits and queues its recipients, or records it failed with the
 * usual 402 text when the balance is short, and adds the occurrence after it. What the API does
 * with a series (accepting its repeat, cancelling it) is in recurring.ts.
 */

const DAY_MS = 86_400_000;

/** The `k`-th occurrence (0: the first) of a series anchored at `anchor`, on the same UTC clock. */
export function occurrenceAt(anchor: Date, every: RepeatEvery, k: number): Date {
  if (every !== 'month') return new Date(anchor.getTime() + k * (every === 'day' ? 1 : 7) * DAY_MS);
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + k;
  // The 31st of a month comes back on the last day of shorter months.
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      y,
      m,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

/** The first occurrence strictly after `after` (occurrences missed while no node ran are skipped). */
export function nextOccurrenceAfter(anchor: Date, every: RepeatEvery, after: Date): Date {
  const step = every === 'day' ? DAY_MS : every === 'week' ? 7 * DAY_MS : 28 * DAY_MS;
  let k = Math.max(1, Math.floor((after.getTime() - anchor.getTime()) / step) - 1);
  if (every === 'month') {
    k = Math.max(
      1,
      (after.getUTCFullYear() - anchor.getUTCFullYear()) * 12 +
        after.getUTCMonth() -
        anchor.getUTCMonth() -
        1,
    );
  }
  while (occurrenceAt(anchor, every, k) <= after) k++;
  return occurrenceAt(anchor, every, k);
}

/**
 * Starts the occurrences whose time has come, each in its own transaction (any node; a job taken
 * by another is skipped). Returns how many started.
 */
export async function startDueOccurrences(ctx: AppContext, max = 50): Promise<number> {
  let started = 0;
  while (started < max) {
    const queuedOn = await ctx.db.transaction(async (tx) => {
      const job = await series.claimDueOccurrence(tx);
      if (!job) return undefined;
      const s = job.seriesId ? await series.lockSeries(tx, job.seriesId) : undefined;
      if (!s) {
        await startOccurrence(tx, job.id, 0, JOB_MESSAGES.jobNotFound);
        return null;
      }
      let chatIds = s.chatIds;
      let chatNames: Array<string | null> = s.chatNames;
      let contents: Array<string | null> | null = s.contents;
      if (s.audience === 'individuals') {
        // Numbers that opted out or were erased since the series was accepted, and without
        // consent when the user must have it, are left out (docs/decisions.md, Opt-outs).
        const [owner] = await queryRows<{ consent_required: boolean }>(
          tx,
          sql`SELECT consent_required FROM users WHERE id = ${s.userId}`,
        );
        const out = await leftOutOfSend(
          tx,
          ctx.config.secretKey,
          { id: s.userId, consentRequired: owner?.consent_required === true },
          chatIds.filter((id) => !isErasedChatId(id)).map(jidUser),
        );
        if (out.optedOut.size > 0 || out.noConsent.size > 0 || chatIds.some(isErasedChatId)) {
          const keep = chatIds.map((id) => {
            const n = jidUser(id);
            return !isErasedChatId(id) && !out.optedOut.has(n) && !out.noConsent.has(n);
          });
          chatIds = chatIds.filter((_, i) => keep[i]);
          chatNames = chatNames.filter((_, i) => keep[i]);
          contents = contents?.filter((_, i) => keep[i]) ?? null;
        }
      }
      const n = chatIds.length;
      let queued = false;
      if (n === 0) {
        await startOccurrence(tx, job.id, 0, JOB_MESSAGES.allOptedOut);
      } else {
        // At the price of the account's kind when the occurrence starts.
        const [account] = await queryRows<{ kind: AccountKind }>(
          tx,
          sql`SELECT kind FROM wa_sessions WHERE session_id = ${job.accountId}`,
        );
        const price = (await readCreditPrices(tx))[account?.kind ?? 'linked'];
        const balance = await debitCredits(tx, s.userId, n * price, 'send', {
          jobId: job.id,
          actorId: s.userId,
        });
        const failedWith = balance === null ? MESSAGES.creditShort : null;
        await series.insertOccurrenceRecipients(
          tx,
          { jobId: job.id, accountId: job.accountId, price },
          chatIds,
          chatNames,
          contents,
          failedWith,
        );
        await startOccurrence(tx, job.id, n, failedWith);
        queued = failedWith === null;
      }
      await series.countStarted(tx, s.id);
      if (s.endedAt === null) {
        const due = job.scheduledAt ?? new Date();
        const next = nextOccurrenceAfter(s.anchorAt, s.every, new Date(Math.max(due.getTime(), Date.now())));
        if (s.until === null || next.getTime() <= s.until.getTime()) {
          await insertJob(tx, {
            id: newId(),
            userId: job.userId,
            accountId: job.accountId,
            audience: job.audience,
            messageType: job.messageType,
            content: job.content,
            poll: job.poll,
            mediaId: job.mediaId,
            mediaMime: job.mediaMime,
            fileName: job.fileName,
            isScheduled: true,
            scheduledAt: next,
            status: 'scheduled',
            total: s.chatIds.length,
            seriesId: s.id,
            awaitingStart: true,
            createdAt: new Date(),
          });
        } else {
          await series.endSeries(tx, s.id);
        }
      }
      return queued ? job.accountId : null;
    });
    if (queuedOn === undefined) break;
    started++;
    if (queuedOn) await signal(ctx, 'recipients-queued', queuedOn);
  }
  return started;
}
