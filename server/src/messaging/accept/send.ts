import type { SendBody, SendResponse } from '@wa/contract';
import { CONSENT_TEXTS, isChannelJid, jidUser, SPREAD_TEXTS } from '@wa/contract';
import { capabilitiesOf } from '../../accounts/providers.ts';
import type { AccountRow } from '../../accounts/repository.ts';
import { channelNames } from '../../channels/repository.ts';
import { type Skipped, sendableRecipients } from '../../contacts/left-out.ts';
import type { AppContext } from '../../context.ts';
import { debitCredits } from '../../credits/credits.ts';
import { readCreditPrices } from '../../credits/prices.ts';
import { badRequest, MESSAGES, paymentRequired } from '../../errors.ts';
import { groupSubjects } from '../../groups/repository.ts';
import { newId, sha256 } from '../../ids.ts';
import { authorizeAccount, authorizeGroups } from '../../policy/access.ts';
import { signal } from '../../signals.ts';
import type { UserRow } from '../../users/repository.ts';
import { gatherIndividuals, personalise, personaliseTemplate } from '../accept/personalise.ts';
import { checkKindOfSend, checkServiceWindows } from '../cloud/accept.ts';
import { type Audience, composeSend, storedContent } from '../compose.ts';
import { assertOwnerMaySend } from '../engine/rules.ts';
import { JOB_MESSAGES, MAX_ACTIVE_SERIES } from '../messages.ts';
import { repeatOf } from '../series/recurring.ts';
import { countActiveSeries, insertSeries } from '../series/repository.ts';
import * as idem from './idempotency.ts';
import * as acceptRepo from './repository.ts';
import { routeRecipients, splitByKind, templateContents } from './route.ts';
/**
 * Accepts a send: checks the permission, the account, the payload (spec order), then in one
 * transaction reserves each recipient's credits (the price of its account's kind), stores the file once, inserts the job and all
 * its recipients. Nothing is half-accepted. The account's dispatcher is woken afterwards.
 */
export async function acceptSend(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  body: SendBody,
  audience: Audience,
  idempotencyKey?: string,
  /** The new job's id; a scheduled follow-up gives the one it promised. */
  jobId: string = newId(),
): Promise<SendResponse> {
  assertOwnerMaySend(user, audience);
  const account = await authorizeAccount(ctx.db, user, 'act', accountId, MESSAGES.noSession);
  const accounts = await sharingAccounts(ctx, user, account, body, audience);
  if (body.coldToCloud === true && !splitByKind(ctx.config, accounts, []))
    throw badRequest(SPREAD_TEXTS.coldNeedsBothKinds);
  const idempotency =
    idempotencyKey === undefined ? null : idem.idempotencyOf(idempotencyKey, audience, accountId, body);
  if (idempotency) {
    // A repeat answers the first job even when it would no longer pass (a past schedule time, a spent balance).
    const previous = await idem.findIdempotentAnswer(ctx.db, user.id, idempotency.key);
    if (previous) return idem.replay(previous, idempotency.requestHash);
  }
  // Credits per recipient of each account's kind: what each recipient is charged.
  const prices = await readCreditPrices(ctx.db);
  const priceOf = accounts.map((a) => prices[a.kind]);
  await assertCreditsForIds(ctx, user, body, audience, Math.min(...priceOf));
  const cc = ctx.config.defaultCountryCode;
  const individuals = audience === 'individuals' ? await gatherIndividuals(ctx.db, user, body, cc) : null;
  const composed = composeSend(individuals ? { ...body, chatIds: individuals.chatIds } : body, audience, cc);
  const { scheduledAt } = composed;
  // Cloud API accounts send approved templates; templates go only through them.
  const message = await checkKindOfSend(ctx, accounts, composed.message, audience);
  const repeat = repeatOf(body, scheduledAt);
  let { chatIds } = composed;
  // Only groups of this account's list: a phone number here would bypass the bulk flag.
  if (audience === 'groups')
    await authorizeGroups(ctx.db, user, 'act', accountId, chatIds, MESSAGES.noSession);

  /** Null for numbers: each is its own name. */
  let chatNames: Array<string | null> | null;
  let skipped: Skipped['skipped'];
  let contents: string[] | null;
  if (audience === 'groups') {
    const subjects = await groupSubjects(ctx.db, accountId, chatIds);
    const channels = await channelNames(ctx.db, accountId, chatIds.filter(isChannelJid));
    const names = chatIds.map((id) => subjects.get(id) ?? channels.get(id) ?? null);
    chatNames = names;
    contents = personalise(message, chatIds, {
      available: ['group'],
      of: (_, i) => ({ group: names[i] ?? '' }),
    });
  } else {
    // Opted-out (or erased) numbers, and without consent when the user must have it, are left
    // out before anything is reserved (docs/decisions.md, Opt-outs).
    const reachesBsuids = accounts.every(
      (a) => capabilitiesOf(ctx.config, a.kind).businessScopedIds === true,
    );
    const sendable = await sendableRecipients(
      ctx.db,
      ctx.config.secretKey,
      user,
      chatIds,
      {
        optedOut: JOB_MESSAGES.allOptedOut,
        noConsent: CONSENT_TEXTS.noneHasConsent,
        needsCloudNumber: JOB_MESSAGES.needsCloudNumber,
      },
      reachesBsuids,
    );
    chatIds = sendable.chatIds;
    skipped = sendable.skipped;
    // A number is its own name: the API shows the digits (present.ts), nothing to store.
    chatNames = null;
    const fieldsOf = individuals!.fieldsOf;
    const fields = { available: individuals!.available, of: (chatId: string) => fieldsOf.get(chatId) ?? {} };
    contents =
      message.type === 'template'
        ? personaliseTemplate(message.template, chatIds, fields)
        : personalise(message, chatIds, fields);
  }

  const mediaId = message.type === 'media' ? sha256(message.data) : null;
  const n = chatIds.length;
  const noun = audience === 'groups' ? groupsNoun(chatIds) : n === 1 ? 'contact' : 'contacts';
  const answer: SendResponse = {
    success: true,
    message: scheduledAt
      ? `Message scheduled for ${n} ${noun} at ${scheduledAt.toISOString()}`
      : `Message sending initiated for ${n} ${noun}`,
    totalChats: n,
    jobId,
    ...(skipped ? { skipped } : {}),
  };
  // Spread over accounts: by what each may still send today, or cold numbers to the Cloud account.
  const split = accounts.length > 1 ? await routeRecipients(ctx, accounts, chatIds, body) : [];
  const byKind = splitByKind(ctx.config, accounts, split);
  if (byKind) answer.split = byKind;
  // A template that linked phones share: their recipients get its body as text.
  const sendsTemplates = accounts.map((a) => capabilitiesOf(ctx.config, a.kind).templates);
  if (audience === 'individuals')
    contents = templateContents(message, (i) => sendsTemplates[split[i] ?? 0]!, contents, chatIds.length);
  if (audience === 'individuals')
    await checkServiceWindows(ctx, accounts, message, chatIds, (i) => (accounts.length > 1 ? split[i]! : 0));
  // Each recipient at the price of the account that sends it; a spread over kinds adds each share.
  const recipientPrices = accounts.length > 1 ? split.map((i) => priceOf[i]!) : null;
  const charge = recipientPrices ? recipientPrices.reduce((a, b) => a + b, 0) : chatIds.length * priceOf[0]!;
  answer.creditsCharged = repeat ? 0 : charge;
  const repeated = await ctx.db.transaction(async (tx) => {
    if (idempotency) {
      // First in the transaction: a concurrent duplicate waits here until this one commits, then replays it.
      const previous = await idem.claimIdempotencyKey(tx, user.id, idempotency.key, idempotency.requestHash);
      if (previous) return previous;
    }
    if (repeat) {
      if ((await countActiveSeries(tx, user.id)) >= MAX_ACTIVE_SERIES)
        throw badRequest(JOB_MESSAGES.tooManySeries);
      // Each occurrence is reserved when it starts; a balance short already now is refused now.
      if ((await acceptRepo.creditsOf(tx, user.id)) < charge) throw paymentRequired(MESSAGES.creditShort);
    } else {
      const balance = await debitCredits(tx, user.id, charge, 'send', { jobId, actorId: user.id });
      if (balance === null) throw paymentRequired(MESSAGES.creditShort);
    }
    if (message.type === 'media')
      await acceptRepo.storeMedia(tx, { id: mediaId!, mime: message.mime, bytes: message.data });
    const now = new Date();
    const seriesId = repeat ? newId() : null;
    if (repeat)
      await insertSeries(tx, {
        id: seriesId!,
        userId: user.id,
        accountId,
        audience,
        every: repeat.every,
        until: repeat.until,
        anchorAt: scheduledAt!,
        chatIds,
        // A null name (a number: its digits are its name) is kept null in the array.
        chatNames: (chatNames ?? chatIds.map(() => null)) as string[],
        contents,
      });
    await acceptRepo.insertJob(tx, {
      id: jobId,
      userId: user.id,
      accountId,
      audience,
      messageType: message.type,
      content: storedContent(message),
      poll: message.type === 'poll' ? message.poll : null,
      mediaId,
      mediaMime: message.type === 'media' ? message.mime : null,
      fileName: message.type === 'media' ? message.fileName : null,
      isScheduled: scheduledAt !== null,
      scheduledAt,
      status: scheduledAt ? 'scheduled' : 'pending',
      total: chatIds.length,
      createdAt: now,
      seriesId,
      awaitingStart: repeat !== null,
      accountIds: accounts.length > 1 ? accounts.map((a) => a.accountId) : null,
    });
    if (!repeat)
      await acceptRepo.insertRecipients(
        tx,
        { jobId, accountId, dueAt: scheduledAt ?? now, price: recipientPrices ?? priceOf[0]! },
        chatIds,
        chatNames,
        contents,
        accounts.length > 1 ? split.map((i) => accounts[i]!.accountId) : null,
      );
    if (idempotency) await idem.saveIdempotentAnswer(tx, user.id, idempotency.key, answer);
    return null;
  });
  if (repeated) return idem.replay(repeated, idempotency!.requestHash);
  if (!repeat) for (const a of accounts) await signal(ctx, 'recipients-queued', a.accountId);
  return answer;
}

/** What a group send goes to, in words: groups, channels, or both. */
function groupsNoun(chatIds: string[]): string {
  const channels = chatIds.filter(isChannelJid).length;
  const one = chatIds.length === 1;
  if (channels === 0) return one ? 'group' : 'groups';
  if (channels === chatIds.length) return one ? 'channel' : 'channels';
  return 'groups and channels';
}

/** Cheap before costly: the balance against the count of ids as given, before parsing them (402). */
export async function assertCreditsForIds(
  ctx: AppContext,
  user: UserRow,
  body: SendBody,
  audience: Audience,
  leastPrice: number,
): Promise<void> {
  // Cheap before costly: the ids as given are at most that many recipients, so the distinct ones
  // are counted only when the ids as given could cost more than the balance.
  const credits = await acceptRepo.creditsOf(ctx.db, user.id);
  const given =
    (body.chatIds?.length ?? 0) + (audience === 'individuals' ? (body.recipients?.length ?? 0) : 0);
  if (credits < given * leastPrice && credits < leastRecipients(body, audience) * leastPrice)
    throw paymentRequired(MESSAGES.creditShort);
}

/**
 * At least how many recipients the send has, counted without parsing: its distinct ids as given
 * (contact lists not counted). Two spellings of one number share their last eight digits and a
 * group's id its digits, so this never counts more than the send will charge.
 */
function leastRecipients(body: SendBody, audience: Audience): number {
  const keys = new Set<string>();
  const key = (id: string) => {
    const digits = jidUser(id).replace(/\D/g, '');
    return audience === 'groups' ? digits : digits.slice(-8);
  };
  for (const id of body.chatIds ?? []) keys.add(key(id));
  if (audience === 'individuals') for (const r of body.recipients ?? []) keys.add(key(r.chatId));
  keys.delete('');
  return keys.size;
}

/**
 * The accounts that share a send: the path's account, then the body's `sessionIds` (duplicates
 * dropped). Each must be one the user may send from and belong to the path account's owner; an
 * unknown one and another user's get the same 400. Group sends and repeating sends go from one
 * account.
 */
export async function sharingAccounts(
  ctx: AppContext,
  user: UserRow,
  account: AccountRow,
  body: SendBody,
  audience: Audience,
): Promise<AccountRow[]> {
  const more = [...new Set((body.sessionIds ?? []).map((id) => id.trim()))].filter(
    (id) => id !== account.accountId,
  );
  if (more.length === 0) return [account];
  if (audience === 'groups') throw badRequest(SPREAD_TEXTS.groups);
  if (body.repeat) throw badRequest(SPREAD_TEXTS.repeat);
  const accounts = [account];
  for (const id of more) {
    const row = await authorizeAccount(ctx.db, user, 'act', id).catch(() => null);
    if (!row || row.userId !== account.userId) throw badRequest(SPREAD_TEXTS.notYours(id));
    accounts.push(row);
  }
  return accounts;
}

const _IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
