import {
  isStatusColour,
  normaliseMime,
  SEND_TEXTS,
  type SendResponse,
  STATUS_FONT_VALUES,
  STATUS_TEXT_MAX,
  STATUS_TEXTS,
  type StatusSendBody,
} from '@wa/contract';
import { capabilitiesOf } from '../../accounts/providers.ts';
import { sendableRecipients } from '../../contacts/left-out.ts';
import type { AppContext } from '../../context.ts';
import { debitCredits } from '../../credits/credits.ts';
import { readCreditPrices } from '../../credits/prices.ts';
import { badRequest, MESSAGES, paymentRequired } from '../../errors.ts';
import { newId, sha256 } from '../../ids.ts';
import { authorizeAccount } from '../../policy/access.ts';
import { signal } from '../../signals.ts';
import type { UserRow } from '../../users/repository.ts';
import * as idem from '../accept/idempotency.ts';
import * as acceptRepo from '../accept/repository.ts';
import { decodeMedia, scheduleTimeOf } from '../compose.ts';
import { assertOwnerMaySend } from '../engine/rules.ts';
import { mediaToSend } from '../media-kind.ts';
import { everyoneMessaged, listMembers } from './audience.ts';

/** A text status's background when none is given (WhatsApp's own teal). */
export const DEFAULT_STATUS_COLOUR = '#128C7E';

type Composed =
  | { type: 'text'; text: string; backgroundColor: string; font: number }
  | { type: 'media'; caption: string; mime: string; data: Buffer };

/** The post of a status send, checked in order with clear errors (STATUS_TEXTS). */
async function composeStatus(body: StatusSendBody): Promise<Composed> {
  if (body.type === 'text') {
    const text = (body.content ?? '').trim();
    if (!text) throw badRequest(STATUS_TEXTS.noText);
    if (text.length > STATUS_TEXT_MAX) throw badRequest(STATUS_TEXTS.textTooLong);
    const backgroundColor = (body.backgroundColor ?? DEFAULT_STATUS_COLOUR).toUpperCase();
    if (!isStatusColour(backgroundColor)) throw badRequest(STATUS_TEXTS.badColour);
    const font = body.font ?? 0;
    if (!STATUS_FONT_VALUES.includes(font)) throw badRequest(STATUS_TEXTS.badFont);
    return { type: 'text', text, backgroundColor, font };
  }
  if (!body.data) throw badRequest(SEND_TEXTS.noFile);
  const { bytes, mimeFromUrl } = decodeMedia(body.data);
  const { as, mime } = await mediaToSend(bytes, {
    mime: normaliseMime(body.mime || mimeFromUrl),
    fileName: null,
  });
  if (as !== 'image' && as !== 'video') throw badRequest(STATUS_TEXTS.notImageOrVideo);
  return { type: 'media', caption: body.content ?? '', mime, data: bytes };
}

/**
 * Accepts a Status post as a job like any other (`messageType: 'status'`): one
 * recipient, and one credit, per audience member, opted-out (and, with the consent setting,
 * unconsented) numbers left out and not charged; all reserved and inserted in one transaction.
 */
export async function acceptStatus(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  body: StatusSendBody,
  idempotencyKey?: string,
): Promise<SendResponse> {
  assertOwnerMaySend(user, 'individuals');
  const account = await authorizeAccount(ctx.db, user, 'act', accountId, MESSAGES.noSession);
  if (!capabilitiesOf(ctx.config, account.kind).status) throw badRequest(STATUS_TEXTS.cannotPost);
  // A repeat of the same post (a retry after a lost answer) answers the first job, as a send does.
  const idempotency =
    idempotencyKey === undefined ? null : idem.idempotencyOf(idempotencyKey, 'status', accountId, body);
  if (idempotency) {
    const previous = await idem.findIdempotentAnswer(ctx.db, user.id, idempotency.key);
    if (previous) return idem.replay(previous, idempotency.requestHash);
  }
  const lists = [...new Set(body.audience.contactListIds ?? [])];
  const everyone = body.audience.everyoneMessaged === true;
  if (lists.length > 0 && everyone) throw badRequest(STATUS_TEXTS.bothAudiences);
  if (lists.length === 0 && !everyone) throw badRequest(STATUS_TEXTS.noAudience);
  const post = await composeStatus(body);
  const scheduledAt = scheduleTimeOf(body.scheduleTime);

  const audience = everyone
    ? await everyoneMessaged(ctx.db, accountId)
    : await listMembers(ctx.db, user, lists, ctx.config.defaultCountryCode);
  if (audience.length === 0)
    throw badRequest(everyone ? STATUS_TEXTS.nobodyMessaged : STATUS_TEXTS.emptyAudience);
  const { chatIds, skipped } = await sendableRecipients(ctx.db, ctx.config.secretKey, user, audience, {
    optedOut: STATUS_TEXTS.emptyAudience,
    noConsent: STATUS_TEXTS.emptyAudience,
  });

  const jobId = newId();
  const n = chatIds.length;
  const noun = n === 1 ? 'contact' : 'contacts';
  const mediaId = post.type === 'media' ? sha256(post.data) : null;
  // Each contact at the price of the account's kind.
  const price = (await readCreditPrices(ctx.db))[account.kind];
  const answer: SendResponse = {
    success: true,
    message: scheduledAt
      ? `Status scheduled for ${n} ${noun} at ${scheduledAt.toISOString()}`
      : `Status posting initiated for ${n} ${noun}`,
    totalChats: n,
    jobId,
    creditsCharged: n * price,
    ...(skipped ? { skipped } : {}),
  };
  const repeated = await ctx.db.transaction(async (tx) => {
    if (idempotency) {
      // First in the transaction: a concurrent duplicate waits here until this one commits, then replays it.
      const previous = await idem.claimIdempotencyKey(tx, user.id, idempotency.key, idempotency.requestHash);
      if (previous) return previous;
    }
    const balance = await debitCredits(tx, user.id, n * price, 'send', { jobId, actorId: user.id });
    if (balance === null) throw paymentRequired(MESSAGES.creditShort);
    if (post.type === 'media')
      await acceptRepo.storeMedia(tx, { id: mediaId!, mime: post.mime, bytes: post.data });
    const now = new Date();
    await acceptRepo.insertJob(tx, {
      id: jobId,
      userId: user.id,
      accountId,
      audience: 'individuals',
      messageType: 'status',
      content: post.type === 'text' ? post.text : post.caption,
      statusStyle: post.type === 'text' ? { backgroundColor: post.backgroundColor, font: post.font } : null,
      mediaId,
      mediaMime: post.type === 'media' ? post.mime : null,
      isScheduled: scheduledAt !== null,
      scheduledAt,
      status: scheduledAt ? 'scheduled' : 'pending',
      total: n,
      createdAt: now,
    });
    await acceptRepo.insertRecipients(
      tx,
      { jobId, accountId, dueAt: scheduledAt ?? now, price },
      chatIds,
      null,
    );
    if (idempotency) await idem.saveIdempotentAnswer(tx, user.id, idempotency.key, answer);
    return null;
  });
  if (repeated) return idem.replay(repeated, idempotency!.requestHash);
  await signal(ctx, 'recipients-queued', accountId);
  return answer;
}

/** How many the account has messaged, for the compose tab's "Everyone this account has messaged". */
export async function statusAudienceCount(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
): Promise<number> {
  await authorizeAccount(ctx.db, user, 'read', accountId, MESSAGES.noSession);
  return (await everyoneMessaged(ctx.db, accountId)).length;
}
