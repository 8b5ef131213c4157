import {
  type AccountKind,
  CONSENT_TEXTS,
  type EditJobBody,
  type EditJobResponse,
  parsePoll,
  pollContent,
  RESCHEDULE_TEXTS,
  SEND_TEXTS,
  type StoredPoll,
  storedPoll,
} from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Skipped, sendableRecipients } from '../../contacts/left-out.ts';
import type { AppContext } from '../../context.ts';
import { addCredits, debitCredits } from '../../credits/credits.ts';
import { readCreditPrices } from '../../credits/prices.ts';
import { queryRows } from '../../db/client.ts';
import { badRequest, conflict, MESSAGES, paymentRequired } from '../../errors.ts';
import { groupSubjects } from '../../groups/repository.ts';
import { sha256 } from '../../ids.ts';
import { authorizeGroups, authorizeJob } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { personalise } from '../accept/personalise.ts';
import { insertRecipients, storeMedia } from '../accept/repository.ts';
import {
  type ComposedMessage,
  composedMedia,
  composedPoll,
  recipientsOf,
  scheduleTimeOf,
} from '../compose.ts';
import { rewrite } from '../engine/job-transitions.ts';
import { assertOwnerMaySend } from '../engine/rules.ts';
import { JOB_MESSAGES } from '../messages.ts';
import * as repo from './repository.ts';

/** Where a paused job's queued recipients wait (engine/rules.ts PAUSED_DUE) until its resume. */
const PAUSED_DUE_DATE = new Date('9999-12-31T00:00:00Z');

/**
 * Edits a job that has not started: a scheduled one, or a paused one none of
 * whose recipients has left the queue. Owner only. In one transaction with the job locked (the
 * dispatcher cannot start it meanwhile): the recipients are replaced, the credits held follow
 * the recipients exactly (the difference charged, or refunded, each with its ledger row), the text
 * (a poll job's poll, a media job's file) and the time change. New recipients pass the rules of a new send (sendableRecipients).
 */
export async function editJob(
  ctx: AppContext,
  user: UserRow,
  jobId: string,
  body: EditJobBody,
): Promise<EditJobResponse> {
  const job = await authorizeJob(ctx.db, user, 'act', jobId);
  if (
    body.scheduleTime === undefined &&
    body.content === undefined &&
    body.chatIds === undefined &&
    body.poll === undefined &&
    body.data === undefined
  )
    throw badRequest(RESCHEDULE_TEXTS.nothingToEdit);
  if (job.seriesId) throw badRequest(RESCHEDULE_TEXTS.series);
  const at = body.scheduleTime === undefined ? null : scheduleTimeOf(body.scheduleTime);
  if (body.scheduleTime !== undefined && !at) throw badRequest(SEND_TEXTS.badScheduleTime);
  const audience = job.audience as 'groups' | 'individuals';
  if (body.content !== undefined) {
    if (job.messageType === 'poll') throw badRequest(RESCHEDULE_TEXTS.notPoll);
    if (job.messageType === 'text' && !body.content.trim()) throw badRequest(SEND_TEXTS.noText);
  }
  // A poll is checked as a send checks it; a new file is decoded (16 MB at most) before any lock.
  if (body.poll !== undefined && job.messageType !== 'poll') throw badRequest(RESCHEDULE_TEXTS.notPoll);
  if (body.data !== undefined && job.messageType !== 'media') throw badRequest(RESCHEDULE_TEXTS.notMedia);
  const newPoll = body.poll === undefined ? null : composedPoll(body.poll).poll;
  const newFile = body.data === undefined ? null : composedMedia(body, '');

  // The new recipients, checked as a send checks them (outside the transaction: no lock held).
  let newChats: { chatIds: string[]; chatNames: Array<string | null> } | null = null;
  let skipped: Skipped['skipped'];
  if (body.chatIds !== undefined) {
    assertOwnerMaySend(user, audience);
    if (job.accountIds && job.accountIds.length > 1) throw badRequest(RESCHEDULE_TEXTS.spread);
    const chatIds = recipientsOf({ chatIds: body.chatIds }, audience, ctx.config.defaultCountryCode);
    if (chatIds.length === 0) throw badRequest(SEND_TEXTS.noRecipients);
    if (audience === 'groups') {
      await authorizeGroups(ctx.db, user, 'act', job.accountId, chatIds, MESSAGES.noSession);
      const subjects = await groupSubjects(ctx.db, job.accountId, chatIds);
      newChats = { chatIds, chatNames: chatIds.map((id) => subjects.get(id) ?? null) };
    } else {
      // The rules of a new send: opted out, erased, and without consent when the user must have it.
      const sendable = await sendableRecipients(ctx.db, ctx.config.secretKey, user, chatIds, {
        optedOut: JOB_MESSAGES.allOptedOut,
        noConsent: CONSENT_TEXTS.noneHasConsent,
      });
      skipped = sendable.skipped;
      newChats = { chatIds: sendable.chatIds, chatNames: sendable.chatIds.map(() => null) };
    }
  }

  const edited = await ctx.db.transaction(async (tx) => {
    const locked = await repo.lockJob(tx, jobId);
    if (!locked) throw conflict(RESCHEDULE_TEXTS.notEditable);
    if (locked.status !== 'scheduled' && locked.status !== 'paused')
      throw conflict(RESCHEDULE_TEXTS.notEditable);
    const current = await queryRows<{
      chat_id: string;
      chat_name: string | null;
      content: string | null;
      status: string;
      session_id: string;
      price: number;
    }>(
      tx,
      sql`SELECT chat_id, chat_name, content, status, session_id, price FROM message_job_recipients
          WHERE job_id = ${jobId} ORDER BY id`,
    );
    // One recipient out of the queue (being sent, sent, failed): the job has started.
    if (current.length === 0 || current.some((r) => r.status !== 'queued'))
      throw conflict(RESCHEDULE_TEXTS.notEditable);

    const text = newPoll ? pollContent(newPoll) : (body.content ?? locked.content);
    const chats = newChats ?? {
      chatIds: current.map((r) => r.chat_id),
      chatNames: current.map((r) => r.chat_name),
    };
    // Per-recipient texts: groups fill {{group}} from their names; a text personalised from a
    // contact list's fields cannot be filled again here (the fields are not kept).
    let contents: string[] | null;
    if (newChats === null && body.content === undefined && newPoll === null) {
      contents = current.some((r) => r.content !== null) ? current.map((r) => r.content ?? text) : null;
    } else {
      const message: ComposedMessage =
        locked.messageType === 'poll'
          ? { type: 'poll', poll: newPoll ?? storedPollOf(text) }
          : locked.messageType === 'media'
            ? {
                type: 'media',
                caption: text,
                mime: locked.mediaMime ?? '',
                data: Buffer.alloc(0),
                fileName: null,
              }
            : { type: 'text', text };
      try {
        contents = personalise(message, chats.chatIds, {
          available: audience === 'groups' ? ['group'] : [],
          of: (_, i): Record<string, string> =>
            audience === 'groups' ? { group: chats.chatNames[i] ?? '' } : {},
        });
      } catch (err) {
        if (audience === 'individuals') throw badRequest(RESCHEDULE_TEXTS.personalised);
        throw err;
      }
    }

    // A recipient kept keeps its account and the price it was charged; a new one is charged the
    // price of the job's account's kind now; one removed gets back what it was charged.
    const kept = new Map(current.map((r) => [r.chat_id, r]));
    const [account] = await queryRows<{ kind: AccountKind }>(
      tx,
      sql`SELECT kind FROM wa_sessions WHERE session_id = ${locked.accountId}`,
    );
    const priceNow = (await readCreditPrices(tx))[account?.kind ?? 'linked'];
    const prices = chats.chatIds.map((id) => kept.get(id)?.price ?? priceNow);
    const accountOf = chats.chatIds.map((id) => kept.get(id)?.session_id ?? locked.accountId);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const delta = sum(prices) - sum(current.map((r) => r.price));
    if (delta > 0) {
      const balance = await debitCredits(tx, user.id, delta, 'send', { jobId, actorId: user.id });
      if (balance === null) throw paymentRequired(MESSAGES.creditShort);
    } else if (delta < 0) {
      await addCredits(tx, user.id, -delta, 'refund', {
        jobId,
        actorId: user.id,
        note: 'Job edited: fewer recipients',
      });
    }

    // A paused job given a time is scheduled again for it; without one it stays paused.
    const scheduledAt = at ?? locked.scheduledAt;
    const status = at ? 'scheduled' : locked.status;
    const dueAt = status === 'paused' ? PAUSED_DUE_DATE : (scheduledAt ?? new Date());
    let media: { id: string; mime: string; fileName: string | null } | undefined;
    if (newFile) {
      media = { id: sha256(newFile.data), mime: newFile.mime, fileName: newFile.fileName };
      await storeMedia(tx, { id: media.id, mime: media.mime, bytes: newFile.data });
    }
    await rewrite(tx, jobId, {
      content: text,
      total: chats.chatIds.length,
      status,
      scheduledAt,
      ...(newPoll ? { poll: newPoll } : {}),
      ...(media ? { media } : {}),
    });
    await insertRecipients(
      tx,
      { jobId, accountId: locked.accountId, dueAt, price: prices },
      chats.chatIds,
      chats.chatNames,
      contents,
      accountOf,
    );
    return { delta, total: chats.chatIds.length };
  });
  return {
    success: true,
    message: RESCHEDULE_TEXTS.edited,
    total: edited.total,
    creditsCharged: edited.delta,
    ...(skipped ? { skipped } : {}),
  };
}

/** A poll job's stored poll, read back from its content. */
function storedPollOf(content: string): StoredPoll {
  return storedPoll(parsePoll(content) ?? { pollName: '', pollOptions: [], allowMultipleAnswers: false });
}
