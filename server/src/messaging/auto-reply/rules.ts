import type { AutoReplyRule } from '@wa/contract';
import { normaliseReply } from '../../contacts/opt-out-words.ts';

/**
 * How an incoming text is compared with a rule's keyword: both as the opt-out words are
 * (normaliseReply: any script, its invisible marks dropped, one space between words, upper case);
 * `exact` is the whole message, `contains` the keyword as whole words of it (letters, marks and
 * digits on neither side, so 'price' is not found in 'priceless' and 'दाम' keeps its vowel signs).
 */
export function ruleMatches(rule: Pick<AutoReplyRule, 'keyword' | 'match'>, text: string): boolean {
  const key = normaliseReply(rule.keyword);
  if (key === '') return false;
  const said = normaliseReply(text);
  if (rule.match === 'exact') return said === key;
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])${escaped}(?![\\p{L}\\p{M}\\p{N}])`, 'u').test(said);
}

/** A rule as its once-per-period record knows it: its match and its keyword as compared. */
export const autoReplyRuleKey = (rule: Pick<AutoReplyRule, 'keyword' | 'match'>): string =>
  `${rule.match}:${normaliseReply(rule.keyword)}`;

/** The first of `rules` that `text` matches. */
export const firstMatch = (rules: readonly AutoReplyRule[], text: string): AutoReplyRule | undefined =>
  rules.find((r) => ruleMatches(r, text));
