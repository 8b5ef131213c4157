import type { Address, OptOutSource } from '@wa/contract';
import { addressOfChatId, jidUser } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { addOptOuts, type OptOutDetail, optOutAddress } from '../contacts/opt-out-list.ts';
import { matchOptOut, OPT_OUT_CONFIRMATIONS } from '../contacts/opt-out-words.ts';
import { addressesOfPerson, chatIdsOf, joinAddresses, optedOutAddresses } from '../contacts/people.ts';
import type { AppContext } from '../context.ts';
import { type Db, queryRows } from '../db/client.ts';
import { failWhere } from './engine/transitions.ts';
import { JOB_MESSAGES } from './messages.ts';

/** Fails 'Opted out' (and refunds) the user's queued recipients at these chat ids. */
async function failQueuedAt(tx: Db, userId: string, chatIds: string[]): Promise<void> {
  if (chatIds.length === 0) return;
  await failWhere(
    tx,
    sql`r.status = 'queued' AND r.chat_id = ANY(${sql.param(chatIds)}::text[])
        AND r.job_id IN (SELECT id FROM message_jobs WHERE user_id = ${userId})`,
    JOB_MESSAGES.optedOut,
    JOB_MESSAGES.optedOut,
    1_000_000,
  );
}

/**
 * Puts numbers on the user's opt-out list and, in the same transaction, fails 'Opted out' (and
 * refunds) the recipients still queued in the user's jobs at any address of their people
 * (docs/decisions.md, Opt-outs; docs/people.md). A message already handed to WhatsApp is not
 * called back. Returns the numbers newly added.
 */
export async function optOut(
  ctx: AppContext,
  userId: string,
  input: string[],
  source: OptOutSource,
  detail?: OptOutDetail,
): Promise<string[]> {
  return ctx.db.transaction(async (tx) => {
    const added = await addOptOuts(tx, userId, input, source, ctx.config.defaultCountryCode, detail);
    if (added.length > 0) {
      const joined = await queryRows<Address>(
        tx,
        sql`SELECT p.kind, p.value FROM person_addresses a
            JOIN person_addresses p ON p.person_id = a.person_id
            WHERE a.user_id = ${userId} AND a.kind = 'phone' AND a.value = ANY(${sql.param(added)}::text[])`,
      );
      const phones = added.map((value) => ({ kind: 'phone' as const, value }));
      await failQueuedAt(tx, userId, chatIdsOf([...phones, ...joined]));
    }
    return added;
  });
}

/**
 * An incoming one-to-one text to one of the user's accounts (`from` as digits or the chat id of
 * the sender's address: a phone, a LID or a BSUID): a whole message that is an opt-out word
 * (OPT_OUT_KEYWORDS, or one in an Indian language, contacts/opt-out-words.ts) opts the sender's
 * person out with source 'reply', keeping the word and the message; on every kind of account of
 * the user, by any of their addresses. Null when it did not; else whether the person was newly
 * opted out and, when the user asked for one, the confirmation to send back once, in the word's
 * language.
 */
export async function takeOptOutReply(
  ctx: AppContext,
  userId: string,
  message: { from: string; text: string; messageId?: string },
  accountId: string | null = null,
): Promise<{ added: boolean; confirmation: string | null } | null> {
  const match = matchOptOut(message.text, ctx.config.optOutKeywords);
  if (!match) return null;
  // Digits without a JID carry the number with its country code.
  const digits = jidUser(message.from).replace(/[^0-9]/g, '');
  const address =
    addressOfChatId(message.from) ?? (digits === '' ? null : ({ kind: 'phone', value: digits } as const));
  if (!address) return null;
  const detail = {
    ...match,
    message: message.text,
    messageId: message.messageId ?? null,
    sessionId: accountId,
  };
  const added = await ctx.db
    .transaction(async (tx) => {
      const newly = await optOutAddress(tx, userId, address, 'reply', detail);
      if (newly) await failQueuedAt(tx, userId, chatIdsOf(await addressesOfPerson(tx, userId, address)));
      return newly;
    })
    .catch(() => null);
  if (added === null) return null;
  // Only a first opt-out is answered: a repeated STOP gets nothing more.
  if (!added) return { added: false, confirmation: null };
  const [flags] = await queryRows<{ confirm: boolean }>(
    ctx.db,
    sql`SELECT opt_out_confirm AS confirm FROM users WHERE id = ${userId}`,
  );
  const confirmation = flags?.confirm
    ? (OPT_OUT_CONFIRMATIONS[match.language] ?? OPT_OUT_CONFIRMATIONS.en!)
    : null;
  return { added: true, confirmation };
}

/**
 * WhatsApp showed that these chat ids (and a username) are one person's: they become one person
 * of the user (contacts/people.ts), and when that person is opted out by any address, the
 * recipients still queued at any other fail 'Opted out' (refunded), in the same transaction.
 */
export async function joinPerson(ctx: AppContext, userId: string, addresses: Address[]): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const personId = await joinAddresses(tx, userId, addresses);
    if (!personId) return;
    const [opted] = await queryRows<{ yes: boolean }>(
      tx,
      sql`SELECT EXISTS (SELECT 1 FROM (${optedOutAddresses(userId)}) oo
                         JOIN person_addresses a ON a.kind = oo.kind AND a.value = oo.value
                         WHERE a.user_id = ${userId} AND a.person_id = ${personId}) AS yes`,
    );
    if (!opted?.yes) return;
    const all = await queryRows<Address>(
      tx,
      sql`SELECT kind, value FROM person_addresses WHERE person_id = ${personId}`,
    );
    await failQueuedAt(tx, userId, chatIdsOf(all));
  });
}
