import { CONSENT_TEXTS, type EraseResponse } from '@wa/contract';
import { type SQL, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record.ts';
import { erasureToken } from '../contacts/erasure-token.ts';
import type { AppContext } from '../context.ts';
import { queryRows } from '../db/client.ts';
import { badRequest } from '../errors.ts';
import { erase } from './engine/job-transitions.ts';
import { failWhere } from './engine/transitions.ts';

/** The digits of `phone` as a whole number inside a text (not part of a longer one). */
const wholeNumber = (phone: string) => `([^0-9]|^)${phone}([^0-9]|$)`;

/**
 * Erases a number from what the user holds (DPDP Act), in one transaction: its list
 * entries go; its opt-out becomes a keyed token (`erasures`), so new sends still leave it out;
 * queued recipients fail 'Erased' (refunded); in past jobs the chat id becomes the token, and
 * the name, personalised text, reply and the stored WhatsApp message go, while every counter
 * stays, so totals and reports add up. Audit and webhook rows, and the user's stored groups, that
 * name the number get the token instead; the shared answer of whether it is on WhatsApp goes. The old row versions go off the disk at the next compaction
 * (erasure-compaction.ts); backups made before keep the number (docs/api.md, "Consent and data requests").
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
  const jid = `${phone}@s.whatsapp.net`;
  /** `text` with the number, where it stands whole, replaced by the token. */
  const withToken = (text: SQL) =>
    sql`regexp_replace(${text}, ${wholeNumber(phone)}, ${`\\1${token}\\2`}, 'g')`;
  return ctx.db.transaction(async (tx) => {
    const lists = await queryRows<{ n: number }>(
      tx,
      sql`WITH gone AS (
            DELETE FROM contacts c USING contact_lists l
            WHERE l.id = c.list_id AND l.user_id = ${userId} AND c.phone_number = ${phone}
            RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
    );
    await tx.execute(sql`DELETE FROM opt_outs WHERE user_id = ${userId} AND phone_number = ${phone}`);
    // When the number last wrote to the user's Cloud API accounts (their service windows).
    await tx.execute(
      sql`DELETE FROM cloud_service_windows w USING wa_sessions s
          WHERE s.session_id = w.session_id AND s.user_id = ${userId} AND w.phone = ${phone}`,
    );
    await tx.execute(
      sql`INSERT INTO erasures (user_id, token, actor_id) VALUES (${userId}, ${token}, ${actor.id})
          ON CONFLICT DO NOTHING`,
    );
    const ofUser = sql`r.job_id IN (SELECT id FROM message_jobs WHERE user_id = ${userId})`;
    await failWhere(
      tx,
      sql`r.status = 'queued' AND r.chat_id = ${jid} AND ${ofUser}`,
      CONSENT_TEXTS.erased,
      CONSENT_TEXTS.erased,
      1_000_000,
    );
    await tx.execute(
      sql`DELETE FROM wa_sent_messages s USING message_job_recipients r
          WHERE r.chat_id = ${jid} AND ${ofUser}
            AND s.session_id = r.session_id AND s.message_id = r.message_id`,
    );
    const messages = await erase(tx, jid, `${token}@erased`, ofUser);
    // Repeating sends keep their recipients for the next occurrence: the token takes the number's place there too.
    await tx.execute(
      sql`UPDATE message_job_series SET chat_ids = array_replace(chat_ids, ${jid}, ${`${token}@erased`})
          WHERE user_id = ${userId} AND ${jid} = ANY(chat_ids)`,
    );
    await tx.execute(
      sql`UPDATE audit_log SET details = ${withToken(sql`details::text`)}::jsonb
          WHERE (target_user_id = ${userId} OR actor_id = ${userId}) AND details::text LIKE ${`%${phone}%`}`,
    );
    await tx.execute(
      sql`UPDATE webhook_deliveries d SET data = ${withToken(sql`d.data::text`)}::jsonb
          FROM webhooks w WHERE w.id = d.webhook_id AND w.user_id = ${userId} AND d.data::text LIKE ${`%${phone}%`}`,
    );
    // A kept send answer lists the numbers it left out (skipped.optedOut).
    await tx.execute(
      sql`UPDATE idempotency_keys SET response = ${withToken(sql`response::text`)}::jsonb
          WHERE user_id = ${userId} AND response::text LIKE ${`%${phone}%`}`,
    );
    // Whether the number is on WhatsApp: shared by every account, a cache asked again when needed.
    await tx.execute(sql`DELETE FROM wa_number_lookups WHERE phone = ${phone} OR jid LIKE ${`${phone}@%`}`);
    // The user's stored groups (members, owner, last message) get the token; forgetting the
    // addressing mode makes a send read the group from WhatsApp rather than use the stored members.
    await tx.execute(
      sql`UPDATE wa_groups g SET participants = ${withToken(sql`g.participants::text`)}::jsonb,
                                 owner = ${withToken(sql`g.owner`)},
                                 last_message = ${withToken(sql`g.last_message::text`)}::jsonb,
                                 addressing_mode = NULL
          FROM wa_sessions s
          WHERE s.session_id = g.session_id AND s.user_id = ${userId}
            AND (g.participants::text LIKE ${`%${phone}%`} OR g.owner LIKE ${`%${phone}%`}
                 OR g.last_message::text LIKE ${`%${phone}%`})`,
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
