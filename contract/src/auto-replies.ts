import { z } from 'zod';
import { SendBody } from './messaging.ts';

/**
 * Keyword auto-replies of an account: a message one person writes to it that matches a rule gets
 * the rule's reply, at most once per person per rule within AUTO_REPLY_PERIOD_MS, as a job of
 * its own (charged and paced as any message).
 */

/** Once per person per rule per 24 hours (docs/decisions.md, Keyword auto-replies, says why). */
export const AUTO_REPLY_PERIOD_MS = 24 * 60 * 60 * 1000;
export const MAX_AUTO_REPLY_RULES = 20;

export const AUTO_REPLY_TEXTS = {
  noKeyword: 'Each rule needs a keyword',
  optOutWord: (word: string) =>
    `“${word}” is an opt-out word: it opts the sender out and cannot be an auto-reply keyword`,
  tooMany: `At most ${MAX_AUTO_REPLY_RULES} auto-reply rules per account`,
  repeated: (word: string) => `The keyword “${word}” is in two rules`,
} as const;

/** The reply: `type` and `content` (with `mime`, `data`, `fileName` for a file) as in the send routes. */
export const AutoReplyMessage = SendBody.pick({
  type: true,
  content: true,
  mime: true,
  data: true,
  fileName: true,
});
export type AutoReplyMessage = z.infer<typeof AutoReplyMessage>;

export const AutoReplyRule = z.object({
  keyword: z.string().max(200),
  match: z.enum(['contains', 'exact'], { error: "match must be 'contains' or 'exact'" }),
  reply: AutoReplyMessage,
});
export type AutoReplyRule = z.infer<typeof AutoReplyRule>;

/** `PUT /api/session/:sessionId/auto-replies`: the account's rules, replacing the ones it had. */
export const AutoRepliesBody = z.object({ rules: z.array(AutoReplyRule).max(MAX_AUTO_REPLY_RULES * 5) });
export type AutoRepliesBody = z.infer<typeof AutoRepliesBody>;

export const AutoRepliesResponse = z.object({ success: z.literal(true), rules: z.array(AutoReplyRule) });
export type AutoRepliesResponse = z.infer<typeof AutoRepliesResponse>;
