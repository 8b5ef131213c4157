import type { AccountPolicyResponse } from '@wa/contract';
import { formatNumber } from './format.ts';

/** Who a send goes to: groups are capped by the daily limit only; one-to-one chats by every cap. */
export type PlanAudience = 'groups' | 'individuals';

/** How many of a send's messages go on one local day; `startsAt` null is today. */
export type PlanDay = { startsAt: string | null; count: number };

/**
 * A send's messages day by day under the account's caps, the cap that spreads them, and how many
 * no known day takes (the account's coming caps were not given).
 */
export type SendPlan = { days: PlanDay[]; reason: string | null; unplanned: number };

type Policy = Pick<AccountPolicyResponse, 'today' | 'nextDays'>;
type Caps = { limit: number | null; warmUpLimit: number | null; newContactsLimit?: number | null };

/** The tightest cap of a day and its words; `used` what today already sent against each cap. */
function roomOf(
  caps: Caps,
  audience: PlanAudience,
  used: { all: number; oneToOne: number; newContacts: number },
) {
  const rooms: { room: number; why: string }[] = [];
  if (caps.limit != null)
    rooms.push({ room: caps.limit - used.all, why: `daily limit: ${formatNumber(caps.limit)} a day` });
  if (audience === 'individuals' && caps.warmUpLimit != null)
    rooms.push({
      room: caps.warmUpLimit - used.oneToOne,
      why: `warm-up: ${formatNumber(caps.warmUpLimit)} a day`,
    });
  // The engine counts numbers the account never messaged against this cap: a bulk list is mostly those.
  if (audience === 'individuals' && caps.newContactsLimit != null)
    rooms.push({
      room: caps.newContactsLimit - used.newContacts,
      why: `new numbers: ${formatNumber(caps.newContactsLimit)} a day`,
    });
  const tightest = rooms.sort((a, b) => a.room - b.room)[0];
  return tightest ? { room: Math.max(0, tightest.room), why: tightest.why } : null;
}

/** Past this many days a plan stops counting (a send that needs longer says so). */
const MAX_DAYS = 3660;

/**
 * `count` messages day by day under the account's caps (today what is left of them, then each
 * coming day's, the last known day's going on), the way the engine holds them. Recipients already
 * queued by other jobs are not counted, and numbers the account messaged before may go sooner
 * than the new-number cap lets new ones.
 */
export function sendPlan(count: number, audience: PlanAudience, policy: Policy | undefined): SendPlan {
  const all = { days: count > 0 ? [{ startsAt: null, count }] : [], reason: null, unplanned: 0 };
  if (!policy || count <= 0) return all;
  const t = policy.today;
  const today = roomOf(t, audience, {
    all: t.sent,
    oneToOne: t.oneToOneSent ?? t.sent,
    newContacts: t.newContactsSent ?? 0,
  });
  if (!today || today.room >= count) return all;
  const days: PlanDay[] = [];
  let left = count;
  if (today.room > 0) days.push({ startsAt: null, count: today.room });
  left -= today.room;
  let reason = today.why;
  const coming = policy.nextDays ?? [];
  const last = coming.at(-1);
  for (let i = 0; left > 0 && i < MAX_DAYS; i++) {
    const day = coming[i] ?? last;
    if (!day) break;
    const startsAt = coming[i]?.startsAt ?? dayAfter(last!.startsAt, i - coming.length + 1);
    const cap = roomOf(day, audience, { all: 0, oneToOne: 0, newContacts: 0 });
    const room = cap ? Math.min(cap.room, left) : left;
    if (cap && cap.room <= left) reason = cap.why;
    if (room > 0) days.push({ startsAt, count: room });
    left -= room;
  }
  return { days, reason, unplanned: left };
}

const dayAfter = (iso: string, n: number) => new Date(Date.parse(iso) + n * 86_400_000).toISOString();

const dayFormat = new Intl.DateTimeFormat('en-IN', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
});
/** 'Sat, 5 Dec 2026' in the browser's zone; 'today' for today. */
export const dayText = (startsAt: string | null): string =>
  startsAt === null ? 'today' : dayFormat.format(new Date(startsAt));

/** The day the last message is expected to go, null when all go today. */
export const lastDay = (plan: SendPlan): string | null => plan.days.at(-1)?.startsAt ?? null;

/**
 * The days as runs of equal counts, for the list under the forecast:
 * 'today: 25', '29 Nov – 1 Dec: 50 a day (150)'.
 */
export function planRuns(plan: SendPlan): string[] {
  const runs: { from: PlanDay; to: PlanDay; days: number; total: number }[] = [];
  for (const d of plan.days) {
    const run = runs.at(-1);
    if (run && d.startsAt !== null && run.from.startsAt !== null && run.to.count === d.count) {
      run.to = d;
      run.days += 1;
      run.total += d.count;
    } else runs.push({ from: d, to: d, days: 1, total: d.count });
  }
  return runs.map((r) =>
    r.days === 1
      ? `${dayText(r.from.startsAt)}: ${formatNumber(r.total)}`
      : `${dayText(r.from.startsAt)} to ${dayText(r.to.startsAt)}: ${formatNumber(r.from.count)} a day (${formatNumber(r.total)})`,
  );
}

/** The first `count` messages of a plan (the user chose to send fewer): its days cut where they end. */
export function firstOfPlan(plan: SendPlan, count: number): SendPlan {
  const days: PlanDay[] = [];
  let left = count;
  for (const d of plan.days) {
    if (left <= 0) break;
    days.push({ ...d, count: Math.min(d.count, left) });
    left -= d.count;
  }
  const spread = days.length > 1 || days.some((d) => d.startsAt !== null);
  return {
    days,
    reason: spread ? plan.reason : null,
    unplanned: Math.max(0, Math.min(plan.unplanned, left)),
  };
}

/** How many go by the end of today (what 'Send only what goes today' picks). */
export const todayCount = (plan: SendPlan): number =>
  plan.days.filter((d) => d.startsAt === null).reduce((n, d) => n + d.count, 0);
