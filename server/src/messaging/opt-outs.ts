import type { OptOutSource } from '@wa/contract';
import { chatIdOfPhone, jidUser } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { matchOptOut, OPT_OUT_CONFIRMATIONS } from '../contacts/opt-out-words.ts';
import { addOptOuts, type OptOutDetail } from '../contacts/service.ts';
import type { AppContext } from '../context.ts';
import { queryRows } from '../db/client.ts';
import { failWhere } from './engine/transitions.ts';
import { JOB_MESSAGES } from './messages.ts';

/**
 * Puts numbers on the user's opt-out list and, in the same transaction, fails 'Opted out' (and
 * refunds) their recipients still queued in the user's jobs (docs/decisions.md, Opt-outs). A message
 * already handed to WhatsApp is not called back. Returns the numbers newly added.
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
      const chatIds = added.map(chatIdOfPhone);
      await failWhere(
        tx,
        sql`r.status = 'queued' AND r.chat_id = ANY(${sql.param(chatIds)}::text[])
            AND r.job_id IN (SELECT id FROM message_jobs WHERE user_id = ${userId})`,
        JOB_MESSAGES.optedOut,
        JOB_MESSAGES.optedOut,
        1_000_000,
      );
    }
    return added;
  });
}

/**
 * An incoming one-to-one text to one of the user's accounts (`from` as digits or a JID): a whole
 * message that is an opt-out word (OPT_OUT_KEYWORDS, or one in an Indian language,
 * contacts/opt-out-words.ts) opts the sender out with source 'reply', keeping the word and the message.
 * Null when it did not; else whether the number was newly added and, when the user asked for one,
 * the confirmation to send back once, in the word's language.
 */
export async function takeOptOutReply(
  ctx: AppContext,
  userId: string,
  message: { from: string; text: string; messageId?: string },
  sessionId: string | null = null,
): Promise<{ added: boolean; confirmation: string | null } | null> {
  const match = matchOptOut(message.text, ctx.config.optOutKeywords);
  if (!match) return null;
  // A JID carries the number with its country code: read it as international.
  const digits = jidUser(message.from).replace(/[^0-9]/g, '');
  if (digits === '') return null;
  const added = await optOut(ctx, userId, [`+${digits}`], 'reply', {
    ...match,
    message: message.text,
    messageId: message.messageId ?? null,
    sessionId,
  }).catch(() => null);
  if (added === null) return null;
  // Only a first opt-out is answered: a repeated STOP gets nothing more.
  if (added.length === 0) return { added: false, confirmation: null };
  const [flags] = await queryRows<{ confirm: boolean }>(
    ctx.db,
    sql`SELECT opt_out_confirm AS confirm FROM users WHERE id = ${userId}`,
  );
  const confirmation = flags?.confirm
    ? (OPT_OUT_CONFIRMATIONS[match.language] ?? OPT_OUT_CONFIRMATIONS.en!)
    : null;
  return { added: true, confirmation };
}
