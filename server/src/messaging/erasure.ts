import { CONSENT_TEXTS, chatIdOfAddress, type EraseResponse } from '@wa/contract';
import { type SQL, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record.ts';
import { erasureToken } from '../contacts/erasure-token.ts';
import { addressesOfPerson, chatIdsOf, forgetPerson } from '../contacts/people.ts';
import type { AppContext } from '../context.ts';
import { type Db, queryRows } from '../db/client.ts';
import { badRequest } from '../errors.ts';
import { erase } from './engine/job-transitions.ts';
import { failWhere } from './engine/transitions.ts';

/**
 * `value` (a number, a LID's digits, a BSUID) standing whole inside a text, not part of a longer
 * one: digits not beside other digits; a BSUID not beside its own kind of characters.
 */
function whole(value: string): string {
  if (/^[0-9]+$/.test(value)) return `([^0-9]|^)${value}([^0-9]|$)`;
  return `([^0-9A-Za-z.]|^)${value.replace(/[^0-9A-Za-z]/g, (c) => `\\${c}`)}([^0-9A-Za-z.]|$)`;
}

/**
 * Erases a person from what the user holds (DPDP Act), found by their number: every address of
 * theirs (the number, and the LIDs, BSUIDs and username WhatsApp showed to be the same person,
 * docs/people.md) is erased in one transaction. Their list entries go; their opt-outs become keyed
 * tokens (`erasures`), so new sends still leave them out; queued recipients fail 'Erased'
 * (refunded); in past jobs the chat id becomes the token, and the name, personalised text, reply
 * and the stored WhatsApp message go, while every counter stays, so totals and reports add up.
 * Audit and webhook rows, and the user's stored groups, that name an address get the token
 * instead; the shared answer of whether the number is on WhatsApp goes, and so does the person
 * with its addresses and its Inbox (its thread and messages go with the person). The old row versions go off the disk at the next compaction
 * (erasure-compaction.ts); backups made before keep the number (docs/api.md, "Consent and data
 * requests").
 */
export async function erasePerson(
  ctx: AppContext,
  actor: { id: string; username: string },
  userId: string,
  phone: string,
): Promise<Omit<EraseResponse, 'success'>> {
  const key = ctx.config.secretKey;
  if (!key) throw badRequest(CONSENT_TEXTS.needsKey);
  const token = erasureToken(key, userId, phone);
  return ctx.db.transaction(async (tx) => {
    const addresses = await addressesOfPerson(tx, userId, { kind: 'phone', value: phone });
    const values = addresses.map((a) => a.value);
    const kinds = addresses.map((a) => a.kind);
    const lists = await queryRows<{ n: number }>(
      tx,
      sql`WITH gone AS (
            DELETE FROM contacts c USING contact_lists l
            WHERE l.id = c.list_id AND l.user_id = ${userId} AND c.phone_number = ${phone}
            RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
    );
    await tx.execute(
      sql`DELETE FROM opt_outs o
          USING unnest(${sql.param(kinds)}::text[], ${sql.param(values)}::text[]) AS x(kind, value)
          WHERE o.user_id = ${userId} AND o.address_kind = x.kind AND o.phone_number = x.value`,
    );
    // When the person last wrote to the user's Cloud API accounts (their service windows), and
    // texts from their LIDs held for a mapping.
    await tx.execute(
      sql`DELETE FROM cloud_service_windows w USING wa_sessions s
          WHERE s.session_id = w.session_id AND s.user_id = ${userId} AND w.phone = ANY(${sql.param(values)}::text[])`,
    );
    await tx.execute(
      sql`DELETE FROM wa_lid_texts t USING wa_sessions s
          WHERE s.session_id = t.session_id AND s.user_id = ${userId} AND t.lid = ANY(${sql.param(values)}::text[])`,
    );
    // The Inbox's messages from or to any address (those of a person the addresses name go with it below).
    await tx.execute(
      sql`DELETE FROM inbox_messages m WHERE m.user_id = ${userId} AND m.chat_id = ANY(${sql.param(chatIdsOf(addresses))}::text[])`,
    );
    await forgetPerson(tx, userId, addresses);
    // Each address keeps a token: a later send to any of them is left out as erased.
    const tokens = addresses.map((a) => (a.value === phone ? token : erasureToken(key, userId, a.value)));
    await tx.execute(
      sql`INSERT INTO erasures (user_id, token, actor_id)
          SELECT ${userId}, t, ${actor.id} FROM unnest(${sql.param(tokens)}::text[]) AS t
          ON CONFLICT DO NOTHING`,
    );
    const ofUser = sql`r.job_id IN (SELECT id FROM message_jobs WHERE user_id = ${userId})`;
    const chatIds = chatIdsOf(addresses);
    await failWhere(
      tx,
      sql`r.status = 'queued' AND r.chat_id = ANY(${sql.param(chatIds)}::text[]) AND ${ofUser}`,
      CONSENT_TEXTS.erased,
      CONSENT_TEXTS.erased,
      1_000_000,
    );
    await tx.execute(
      sql`DELETE FROM wa_sent_messages s USING message_job_recipients r
          WHERE r.chat_id = ANY(${sql.param(chatIds)}::text[]) AND ${ofUser}
            AND s.session_id = r.session_id AND s.message_id = r.message_id`,
    );
    let messages = 0;
    for (const [i, address] of addresses.entries()) {
      const jid = chatIdOfAddress(address);
      const erased = erasedChatId(tokens[i]!);
      if (jid) {
        messages += await erase(tx, jid, erased, ofUser);
        // Repeating sends keep their recipients for the next occurrence: the token takes the address's place there too.
        await tx.execute(
          sql`UPDATE message_job_series SET chat_ids = array_replace(chat_ids, ${jid}, ${erased})
              WHERE user_id = ${userId} AND ${jid} = ANY(chat_ids)`,
        );
      }
      await replaceInTexts(tx, userId, address.value, tokens[i]!);
    }
    // Whether the number is on WhatsApp: shared by every account, a cache asked again when needed.
    await tx.execute(
      sql`DELETE FROM wa_number_lookups WHERE phone = ${phone} OR jid = ${chatIdOfAddress({ kind: 'phone', value: phone })}`,
    );
    const answer = {
      erased: true as const,
      token,
      lists: Number(lists[0]?.n ?? 0),
      messages,
    };
    await recordAudit(tx, {
      actor,
      action: 'contact.erase',
      targetUserId: userId,
      details: { token, lists: answer.lists, messages: answer.messages },
    });
    return answer;
  });
}

/** What an erased recipient's chat id becomes: the token, in a form no address has. */
const erasedChatId = (token: string) => `${token}@erased`;

/**
 * Audit and webhook rows, kept send answers and the user's stored groups that name `value` get
 * `token` in its place.
 */
async function replaceInTexts(tx: Db, userId: string, value: string, token: string): Promise<void> {
  const withToken = (text: SQL) => sql`regexp_replace(${text}, ${whole(value)}, ${`\\1${token}\\2`}, 'g')`;
  const like = `%${value}%`;
  await tx.execute(
    sql`UPDATE audit_log SET details = ${withToken(sql`details::text`)}::jsonb
        WHERE (target_user_id = ${userId} OR actor_id = ${userId}) AND details::text LIKE ${like}`,
  );
  await tx.execute(
    sql`UPDATE webhook_deliveries d SET data = ${withToken(sql`d.data::text`)}::jsonb
        FROM webhooks w WHERE w.id = d.webhook_id AND w.user_id = ${userId} AND d.data::text LIKE ${like}`,
  );
  // A kept send answer lists the numbers it left out (skipped.optedOut).
  await tx.execute(
    sql`UPDATE idempotency_keys SET response = ${withToken(sql`response::text`)}::jsonb
        WHERE user_id = ${userId} AND response::text LIKE ${like}`,
  );
  // The user's stored groups (members, owner, last message) get the token; forgetting the
  // addressing mode makes a send read the group from WhatsApp rather than use the stored members.
  await tx.execute(
    sql`UPDATE wa_groups g SET participants = ${withToken(sql`g.participants::text`)}::jsonb,
                               owner = ${withToken(sql`g.owner`)},
                               last_message = ${withToken(sql`g.last_message::text`)}::jsonb,
                               addressing_mode = NULL
        FROM wa_sessions s
        WHERE s.session_id = g.session_id AND s.user_id = ${userId}
          AND (g.participants::text LIKE ${like} OR g.owner LIKE ${like} OR g.last_message::text LIKE ${like})`,
  );
}
