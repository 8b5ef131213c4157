import { addressOfChatId } from '@wa/contract';
import { addressesOfPerson, chatIdsOf } from '../contacts/people.ts';
import type { AppContext } from '../context.ts';
import type { AccountOutcome, IncomingMessage } from '../transport/types.ts';
import { takeAutoReply } from './auto-reply/auto-reply.ts';
import { recordPricing } from './engine/cloud-transitions.ts';
import { applyReceipts } from './engine/receipts.ts';
import { failureStanding, refuse, retrySent } from './engine/refusals.ts';
import { reply, sentAfterAllByCopies } from './engine/transitions.ts';
import { keepAnswer, keepIncoming } from './inbox/incoming.ts';
import { joinPerson, takeOptOutReply } from './opt-outs.ts';

/** The account an outcome came back to. */
export type OutcomeAccount = { accountId: string; userId: string };

/** An outcome, with the account it came back to. */
export type TakenOutcome = { account: OutcomeAccount; outcome: AccountOutcome };

/** Sends one text back to a person through the account (an opt-out's confirmation); not a job, not charged. */
export type AnswerBack = (account: OutcomeAccount, to: string, text: string) => Promise<void>;

/**
 * `by`: who reported the outcomes, for the audit of what they refund; null for the account's own
 * transport on this node. `answer`: how to write back to a person.
 */
export type OutcomeSource = { by: string | null; answer: AnswerBack | null };

/**
 * The one door through which what comes back from any kind of account enters the engine: each
 * provider reports the same outcomes (transport/types.ts AccountOutcome), one account's (a Cloud
 * API webhook) or a batch of several accounts' (a node's sockets, outcome-batches.ts), and what
 * follows each is written here once. Returns the outcomes about a message no recipient has yet
 * (the send not recorded: the provider tries them again).
 */
export async function takeOutcomes(
  ctx: AppContext,
  taken: TakenOutcome[],
  source: OutcomeSource,
): Promise<TakenOutcome[]> {
  const unmatched = await takeReceipts(ctx, taken);
  await recordPricing(
    ctx.db,
    taken.flatMap(({ account, outcome: o }) =>
      o.type === 'priced' ? [{ accountId: account.accountId, ...o }] : [],
    ),
  );
  for (const x of taken) {
    const { account, outcome: o } = x;
    if (o.type === 'refused') {
      if (!(await takeRefusal(ctx, account.accountId, o, source.by))) unmatched.push(x);
    } else if (o.type === 'incoming') await takeIncoming(ctx, account, o.message, source.answer);
    else if (o.type === 'same-person') await joinPerson(ctx, account.userId, o.addresses);
  }
  return unmatched;
}

/**
 * Delivered and read, of every account of the batch, through the engine's one receipts statement:
 * a read before its delivered sets both, a late delivered after read changes nothing, repeats
 * change nothing. A receipt no recipient has may be for a send that timed out (failed, delivery
 * unknown) whose message the transport kept a copy of: that recipient becomes sent after all, and
 * the receipt applies. Returns the receipts that still match no recipient.
 */
async function takeReceipts(ctx: AppContext, taken: TakenOutcome[]): Promise<TakenOutcome[]> {
  const receipts = taken.flatMap((x) =>
    x.outcome.type === 'receipt' ? [{ x, receipt: x.outcome.receipt }] : [],
  );
  const asReceipts = receipts.map(({ x, receipt }) => ({ accountId: x.account.accountId, ...receipt }));
  let missed = new Set(await applyReceipts(ctx.db, asReceipts));
  if (missed.size > 0) {
    const timedOut = new Set(await sentAfterAllByCopies(ctx.db, [...missed]));
    if (timedOut.size > 0) {
      const still = new Set(
        await applyReceipts(
          ctx.db,
          [...missed].filter((r) => timedOut.has(r.messageId)),
        ),
      );
      missed = new Set([...missed].filter((r) => !timedOut.has(r.messageId) || still.has(r)));
    }
  }
  return receipts.filter((_, i) => missed.has(asReceipts[i]!)).map(({ x }) => x);
}

/**
 * A refusal after the send: the recipient fails and is refunded, or (`retryAt`) waits and is sent
 * again. Only a recipient still counted sent without a receipt changes (engine/refusals.ts); a
 * repeat, or a refusal after delivered or read, changes nothing. False when no recipient has the
 * message id (the send not recorded yet).
 *
 * The transition and the send's own record race: the transition can read the recipient while it
 * is still 'sending' (or skip its row while the record holds it) and match nothing, and the record
 * commits a moment later. So the standing is read after the transition: a recipient still failable
 * means the transition missed it, and it runs again.
 */
async function takeRefusal(
  ctx: AppContext,
  accountId: string,
  o: Extract<AccountOutcome, { type: 'refused' }>,
  by: string | null,
): Promise<boolean> {
  const transition = () =>
    o.retryAt
      ? retrySent(ctx.db, accountId, o.messageId, o.retryAt, by)
      : refuse(ctx.db, accountId, o.messageId, o.reason, REFUSED_MAX, by);
  for (let attempt = 0; attempt < REFUSAL_ATTEMPTS; attempt++) {
    if (await transition()) {
      if (!o.retryAt) ctx.metrics.messages.inc({ outcome: 'failed' });
      return true;
    }
    const standing = await failureStanding(ctx.db, accountId, o.messageId);
    if (standing === null) return false;
    if (standing === 'settled') return true;
  }
  return false;
}

/** Runs of a refusal's transition that may find its recipient just recorded sent. */
const REFUSAL_ATTEMPTS = 3;
/** The most recipients one refused message id fails (a Status post is one id for its audience). */
const REFUSED_MAX = 10;

/**
 * Someone wrote to the account: the account's latest send to that number within the reply window
 * is marked replied (a message without text as ''), the message goes into the owner's Inbox
 * (inbox/incoming.ts), and a text that is an opt-out word puts its sender's person on the owner's
 * opt-out list (messaging/opt-outs.ts) and, when the owner asked for it, is answered once in the
 * word's language. Any other text may be answered by the account's keyword auto-replies
 * (auto-reply/auto-reply.ts), which the Inbox shows in the thread.
 */
async function takeIncoming(
  ctx: AppContext,
  account: OutcomeAccount,
  message: IncomingMessage,
  answer: AnswerBack | null,
): Promise<void> {
  const { accountId, userId } = account;
  const address = addressOfChatId(message.from);
  // A reply by any address of the person answers a send to any other (a STOP by LID to a number).
  if (address) {
    const chatIds = chatIdsOf(await addressesOfPerson(ctx.db, userId, address));
    await reply(ctx.db, accountId, chatIds, message.text ?? '', message.at);
  }
  const personId = await keepIncoming(ctx, account, message);
  if (message.text === null) return;
  const result = await takeOptOutReply(ctx, userId, { ...message, text: message.text }, accountId);
  // An opt-out word is never answered by an auto-reply: it opts out, and that is all.
  if (result === null) {
    const auto = await takeAutoReply(ctx, account, { ...message, text: message.text });
    if (auto && personId) await keepAnswer(ctx, account, auto.to, auto.jobId, personId);
  }
  if (!result?.added) return;
  ctx.log.info({ accountId, from: message.from }, 'opt-out keyword received: number opted out');
  if (result.confirmation && answer) await answer(account, message.from, result.confirmation);
}
