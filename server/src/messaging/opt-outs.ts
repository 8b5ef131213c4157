import type { OptOutSource } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { addOptOuts, isOptOutReply } from '../contacts/service.ts';
import type { AppContext } from '../context.ts';
import { JOB_MESSAGES } from './messages.ts';
import { failAndRefundWhere } from './recipient-sql.ts';

/**
 * Puts numbers on the user's opt-out list and, in the same transaction, fails 'Opted out' (and
 * refunds) their recipients still queued in the user's jobs (DECISIONS.md, Opt-outs). A message
 * already handed to WhatsApp is not called back. Returns the numbers newly added.
 */
export async function optOut(
  ctx: AppContext,
  userId: string,
  input: string[],
  source: OptOutSource,
): Promise<string[]> {
  return ctx.db.transaction(async (tx) => {
    const added = await addOptOuts(tx, userId, input, source, ctx.config.defaultCountryCode);
    if (added.length > 0) {
      const chatIds = added.map((n) => `${n}@s.whatsapp.net`);
      await failAndRefundWhere(
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
 * An incoming one-to-one text to one of the user's accounts (`from` as digits or a JID): an
 * opt-out keyword (OPT_OUT_KEYWORDS, trimmed, any case) opts the sender out with source 'reply'.
 * True when it did.
 */
export async function receiveReply(
  ctx: AppContext,
  userId: string,
  message: { from: string; text: string },
): Promise<boolean> {
  if (!isOptOutReply(message.text, ctx.config.optOutKeywords)) return false;
  const [user] = message.from.split('@');
  // A JID carries the number with its country code: read it as international.
  const digits = (user ?? '').split(':')[0]?.replace(/[^0-9]/g, '') ?? '';
  if (digits === '') return false;
  const added = await optOut(ctx, userId, [`+${digits}`], 'reply').catch(() => null);
  return added !== null;
}
