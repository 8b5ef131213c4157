import type { AccountKind } from '@wa/contract';
import { formatNumber } from '../../lib/format.ts';
import { dayText, lastDay, type SendPlan } from '../../lib/send-plan.ts';

/** The kinds of account a send may go through, each priced per recipient (lib/capabilities.ts priceKindOf). */
export type ChargeKind = AccountKind;

/**
 * One kind of account sharing a charge: its price per recipient, and how many recipients it
 * takes (null when the server splits them by what each account may still send today).
 */
export type ChargeShare = { kind: ChargeKind; price: number; recipients: number | null };

/** What a charge costs: exact when each share's count is known, else a range. */
export type Credits = { min: number; max: number };

const KIND_NAME: Record<ChargeKind, string> = { linked: 'Linked phone', cloud: 'Cloud API account' };

const creditsWord = (n: number) => `${formatNumber(n)} credit${n === 1 ? '' : 's'}`;

/** The shares with `count` recipients in all (fewer than planned: the known counts are cut in order). */
function sharesOf(count: number, shares: readonly ChargeShare[]): ChargeShare[] {
  if (shares.some((s) => s.recipients === null)) return [...shares];
  let left = count;
  return shares.map((s) => {
    const n = Math.min(s.recipients ?? 0, left);
    left -= n;
    return { ...s, recipients: n };
  });
}

/** The credits of `count` recipients over the shares. */
export function creditsOf(count: number, shares: readonly ChargeShare[]): Credits {
  const all = sharesOf(count, shares);
  if (all.length === 0) return { min: count, max: count };
  if (all.some((s) => s.recipients === null)) {
    const prices = all.map((s) => s.price);
    return { min: count * Math.min(...prices), max: count * Math.max(...prices) };
  }
  const exact = all.reduce((n, s) => n + (s.recipients ?? 0) * s.price, 0);
  return { min: exact, max: exact };
}

/**
 * A line per kind of account: 'Linked phone: 7 × 1 credit = 7 credits', or its price when the
 * server splits the recipients: 'Cloud API account: 2 credits each'.
 */
export function shareLines(count: number, shares: readonly ChargeShare[]): string[] {
  return sharesOf(count, shares).map((s) =>
    s.recipients === null
      ? `${KIND_NAME[s.kind]}: ${creditsWord(s.price)} each`
      : `${KIND_NAME[s.kind]}: ${formatNumber(s.recipients)} × ${creditsWord(s.price)} = ${creditsWord(s.recipients * s.price)}`,
  );
}

/**
 * '3 recipients · 3 credits · balance after 7'; over kinds of different prices whose split the
 * server decides, a range: '3 recipients · 3–9 credits · balance after 1–7'.
 */
export function costLine(
  count: number,
  balance: number,
  credits: Credits = { min: count, max: count },
): string {
  const recipients = `${formatNumber(count)} recipient${count === 1 ? '' : 's'}`;
  if (credits.min === credits.max)
    return `${recipients} · ${creditsWord(credits.min)} · balance after ${formatNumber(balance - credits.min)}`;
  return `${recipients} · ${formatNumber(credits.min)}–${formatNumber(credits.max)} credits · balance after ${formatNumber(balance - credits.max)}–${formatNumber(balance - credits.min)}`;
}

/** The account's pause between messages, for how long a send that all goes today takes. */
export type Pace = { delayMinMs: number; delayMaxMs: number };

const minutes = (ms: number) => {
  const m = Math.round(ms / 60_000);
  if (m < 1) return 'under a minute';
  if (m < 90) return `about ${m} minute${m === 1 ? '' : 's'}`;
  return `about ${formatNumber(Math.round(m / 60))} hours`;
};

/**
 * When the last message will go: the day the account's caps let it go (with the cap that spreads
 * the send), or how long the account's pace takes today; `startsAt` a scheduled time; `holding`
 * why the account waits now ('Waiting: quiet hours until 09:00').
 */
export function lastGoesText(opts: {
  count: number;
  plan: SendPlan | null;
  pace: Pace | null;
  startsAt?: string | null;
  holding?: string | null;
  /** One post that many see (a Status, a channel post): it goes as one message. */
  single?: boolean;
}): string {
  const { count, plan, pace } = opts;
  const start = opts.startsAt
    ? `Starts ${opts.startsAt}. `
    : opts.holding
      ? `${opts.holding}: the send starts then. `
      : '';
  if (opts.single) return `${start}It goes ${opts.startsAt ? 'then' : 'now'}, as one post`;
  const last = plan ? lastDay(plan) : null;
  if (plan && plan.unplanned > 0)
    return `${start}${formatNumber(plan.unplanned)} have no day yet (${plan.reason}): they go as the account's caps allow`;
  if (last) return `${start}The last message is expected to go on ${dayText(last)} (${plan!.reason})`;
  if (!pace || pace.delayMaxMs === 0 || count <= 1)
    return `${start}${opts.startsAt ? 'All go then' : 'All go now'}, one after another`;
  const average = ((pace.delayMinMs + pace.delayMaxMs) / 2) * (count - 1);
  return `${start}All go ${opts.startsAt ? 'that day' : 'today'}: the last in ${minutes(average)} at this account's pace (${formatNumber(pace.delayMinMs / 1000)}–${formatNumber(pace.delayMaxMs / 1000)} s apart)`;
}
