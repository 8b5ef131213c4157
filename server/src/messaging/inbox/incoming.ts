import { addressOfChatId, chatIdOfAddress } from '@wa/contract';
import { addressesOfPerson, chatIdsOf, personOfAddress } from '../../contacts/people.ts';
import type { AppContext } from '../../context.ts';
import type { IncomingMessage } from '../../transport/types.ts';
import { queueWebhookEvents } from '../../webhooks/service.ts';
import { answeredJob } from '../engine/transitions.ts';
import { insertAnswer, insertIncoming } from './store.ts';

/** The account a message came to or went from. */
type Account = { accountId: string; userId: string };

/**
 * A one-to-one message someone sent to one of the user's accounts, into the Inbox: kept under the
 * sender's person (made for an address no person has yet: contacts/people.ts personOfAddress),
 * with the job whose message it answers, in the thread it opens again as unread; and queued as a
 * `message.received` webhook event in the same transaction (a poll vote's with the options it
 * chose). A repeat of a kept message changes
 * nothing. Returns the person's id, null for what is no person's chat (a group, a username).
 */
export async function keepIncoming(
  ctx: AppContext,
  account: Account,
  message: IncomingMessage,
): Promise<string | null> {
  const address = addressOfChatId(message.from);
  if (!address || chatIdOfAddress(address) === null) return null;
  const at = message.at ?? new Date();
  const chatIds = chatIdsOf(await addressesOfPerson(ctx.db, account.userId, address));
  const jobId = await answeredJob(ctx.db, account.accountId, chatIds, at, message.answers ?? null);
  const type = message.type ?? (message.text !== null ? 'text' : 'other');
  // A poll vote's text is the options it chose ('' when they could not be read, or none was left).
  const text = message.text ?? message.caption ?? message.votes?.join(', ') ?? '';
  return ctx.db.transaction(async (tx) => {
    const personId = await personOfAddress(tx, account.userId, address);
    const kept = await insertIncoming(tx, {
      userId: account.userId,
      personId,
      accountId: account.accountId,
      chatId: message.from,
      messageId: message.messageId,
      type,
      text,
      media: message.media ?? null,
      jobId,
      name: message.name ?? null,
      at,
    });
    if (kept)
      await queueWebhookEvents(tx, account.userId, 'message.received', [
        {
          sessionId: account.accountId,
          personId,
          // A number's digits, else the address as it is (a LID's digits, a BSUID).
          from: address.value,
          messageId: message.messageId,
          type,
          text,
          jobId,
          // A poll vote's options: [] when the person took their vote back, null when not known.
          ...(type === 'poll_vote' ? { options: message.votes ?? null } : {}),
          at: at.toISOString(),
        },
      ]);
    return personId;
  });
}

/**
 * A job the account sent a person as an answer (from the Inbox, or an auto-reply): kept in their
 * thread as its latest message. `to` is the chat id it went to.
 */
export async function keepAnswer(
  ctx: AppContext,
  account: Account,
  to: string,
  jobId: string,
  personId?: string,
): Promise<void> {
  let person = personId;
  if (!person) {
    const address = addressOfChatId(to);
    if (!address) return;
    person = await ctx.db.transaction((tx) => personOfAddress(tx, account.userId, address));
  }
  await insertAnswer(ctx.db, {
    userId: account.userId,
    personId: person,
    accountId: account.accountId,
    chatId: to,
    jobId,
    at: new Date(),
  });
}
