import {
  AUTO_REPLY_PERIOD_MS,
  AUTO_REPLY_TEXTS,
  type AutoRepliesBody,
  type AutoRepliesResponse,
  type AutoReplyRule,
  addressOfChatId,
  chatIdOfAddress,
  MAX_AUTO_REPLY_RULES,
  type SendBody,
} from '@wa/contract';
import { eq, sql } from 'drizzle-orm';
import { matchOptOut } from '../../contacts/opt-out-words.ts';
import { addressesOfPerson, chatIdsOf } from '../../contacts/people.ts';
import type { AppContext } from '../../context.ts';
import { queryRows } from '../../db/client.ts';
import { autoReplyRules } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import { sha256 } from '../../ids.ts';
import { authorizeAccount } from '../../policy/access.ts';
import { findUserById, type UserRow } from '../../users/repository.ts';
import { acceptSend } from '../accept/send.ts';
import { composeSend } from '../compose.ts';
import { autoReplyRuleKey, firstMatch } from './rules.ts';

async function rulesOf(ctx: AppContext, accountId: string): Promise<AutoReplyRule[]> {
  const [row] = await ctx.db.select().from(autoReplyRules).where(eq(autoReplyRules.accountId, accountId));
  return (row?.rules ?? []) as AutoReplyRule[];
}

/** `GET /api/session/:sessionId/auto-replies`. */
export async function getAutoReplies(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
): Promise<AutoRepliesResponse> {
  await authorizeAccount(ctx.db, user, 'read', accountId);
  return { success: true, rules: await rulesOf(ctx, accountId) };
}

/**
 * `PUT /api/session/:sessionId/auto-replies`: the account's rules, checked as a send checks its
 * message; an opt-out word is no keyword (it opts the sender out, and that stays so).
 */
export async function putAutoReplies(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  body: AutoRepliesBody,
): Promise<AutoRepliesResponse> {
  const account = await authorizeAccount(ctx.db, user, 'act', accountId);
  if (body.rules.length > MAX_AUTO_REPLY_RULES) throw badRequest(AUTO_REPLY_TEXTS.tooMany);
  const seen = new Set<string>();
  const rules = body.rules.map((r) => {
    const keyword = r.keyword.trim();
    if (!keyword) throw badRequest(AUTO_REPLY_TEXTS.noKeyword);
    if (matchOptOut(keyword, ctx.config.optOutKeywords))
      throw badRequest(AUTO_REPLY_TEXTS.optOutWord(keyword));
    const key = autoReplyRuleKey({ keyword, match: r.match });
    if (seen.has(key)) throw badRequest(AUTO_REPLY_TEXTS.repeated(keyword));
    seen.add(key);
    // The reply is checked now with the account's own number, as a send would check it.
    composeSend(
      { ...r.reply, chatIds: [account.phoneNumber] } as SendBody,
      'individuals',
      ctx.config.defaultCountryCode,
    );
    return { keyword, match: r.match, reply: r.reply };
  });
  await ctx.db
    .insert(autoReplyRules)
    .values({ accountId, rules, updatedAt: new Date() })
    .onConflictDoUpdate({ target: autoReplyRules.accountId, set: { rules, updatedAt: new Date() } });
  return { success: true, rules };
}

/**
 * A one-to-one text that is no opt-out word came to the account: the first rule it matches
 * answers, unless that rule answered this person within AUTO_REPLY_PERIOD_MS. The answer is a
 * job of its own through the send path (charged, opted-out people left out, paced by the
 * account's policy). The period is claimed by one statement, so two nodes answer once; a send
 * the path refuses (no credits, opted out) gives the claim back.
 */
export async function takeAutoReply(
  ctx: AppContext,
  account: { accountId: string; userId: string },
  message: { from: string; text: string; at?: Date },
): Promise<{ jobId: string; to: string } | null> {
  // A number or a BSUID is written to; a group, a LID or a username is not answered.
  const address = addressOfChatId(message.from);
  if (address?.kind !== 'phone' && address?.kind !== 'bsuid') return null;
  const to = chatIdOfAddress(address)!;
  const rule = firstMatch(await rulesOf(ctx, account.accountId), message.text);
  if (!rule) return null;
  const owner = await findUserById(ctx.db, account.userId);
  if (!owner || owner.disabled) return null;
  const ruleKey = autoReplyRuleKey(rule);
  // Once per person: claimed under the address written from, and not at all when the rule
  // answered another address of the same person (contacts/people.ts) within the period.
  const personKey = to;
  const others = chatIdsOf(await addressesOfPerson(ctx.db, account.userId, address)).slice(1);
  const now = new Date();
  if (others.length > 0) {
    const answered = await queryRows<{ one: number }>(
      ctx.db,
      sql`SELECT 1 AS one FROM auto_replies_sent
          WHERE session_id = ${account.accountId} AND rule_key = ${ruleKey}
            AND person_key = ANY(${sql.param(others)}::text[])
            AND sent_at > ${now}::timestamptz - ${`${AUTO_REPLY_PERIOD_MS} milliseconds`}::interval
          LIMIT 1`,
    );
    if (answered.length > 0) return null;
  }
  const claimed = await queryRows<{ one: number }>(
    ctx.db,
    sql`INSERT INTO auto_replies_sent (session_id, rule_key, person_key, sent_at)
        VALUES (${account.accountId}, ${ruleKey}, ${personKey}, ${now})
        ON CONFLICT (session_id, rule_key, person_key) DO UPDATE SET sent_at = excluded.sent_at, job_id = NULL
          WHERE auto_replies_sent.sent_at <= excluded.sent_at - ${`${AUTO_REPLY_PERIOD_MS} milliseconds`}::interval
        RETURNING 1 AS one`,
  );
  if (claimed.length === 0) return null;
  try {
    const sent = await acceptSend(
      ctx,
      owner,
      account.accountId,
      { ...(rule.reply as SendBody), chatIds: [to] },
      'individuals',
      // Visible ASCII only: the rule's keyword may be in any script.
      `auto-reply:${sha256(Buffer.from(`${account.accountId}\n${ruleKey}\n${personKey}\n${now.getTime()}`))}`,
    );
    await ctx.db.execute(
      sql`UPDATE auto_replies_sent SET job_id = ${sent.jobId}
          WHERE session_id = ${account.accountId} AND rule_key = ${ruleKey} AND person_key = ${personKey}`,
    );
    return { jobId: sent.jobId, to };
  } catch (err) {
    await ctx.db.execute(
      sql`DELETE FROM auto_replies_sent
          WHERE session_id = ${account.accountId} AND rule_key = ${ruleKey} AND person_key = ${personKey}
            AND sent_at = ${now} AND job_id IS NULL`,
    );
    ctx.log.info({ err, accountId: account.accountId, rule: ruleKey }, 'auto-reply not sent');
    return null;
  }
}
