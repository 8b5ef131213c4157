import type { AccountPolicyResponse } from '@wa/contract';
import { formatNumber } from '../../lib/format.ts';
import type { Audience } from './compose-form.ts';

/** 'HH:mm' of an instant in the browser's zone (24-hour, as the account's policy speaks). */
const clock = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    new Date(iso),
  );

/**
 * What the account's policy will do to a send of `count` recipients now (120 numbers
 * stopped at 46 with no warning): '46 today, the rest from tomorrow 00:00 (warm-up: 50 a day)',
 * or why the account waits now; null when everything may go today. The warm-up counts one-to-one
 * messages only; the daily limit every message. Recipients already queued by other jobs are not
 * counted (they may take some of today's room first).
 */
export function sendForecast(
  count: number,
  audience: Audience,
  policy: Pick<AccountPolicyResponse, 'today' | 'holding'> | undefined,
  at: (iso: string) => string = clock,
): string | null {
  if (!policy || count <= 0) return null;
  const t = policy.today;
  const caps: { room: number; why: string }[] = [];
  if (t.limit != null)
    caps.push({ room: t.limit - t.sent, why: `daily limit: ${formatNumber(t.limit)} a day` });
  if (audience === 'individuals' && t.warmUpLimit != null)
    caps.push({
      room: t.warmUpLimit - (t.oneToOneSent ?? t.sent),
      why: `warm-up: ${formatNumber(t.warmUpLimit)} a day`,
    });
  const cap = caps.sort((a, b) => a.room - b.room)[0];
  if (cap && cap.room < count) {
    const when = `tomorrow ${at(t.resetsAt)}`;
    const room = Math.max(0, cap.room);
    return room === 0
      ? `None today: all from ${when} (${cap.why})`
      : `${formatNumber(room)} today, the rest from ${when} (${cap.why})`;
  }
  return policy.holding ? `${policy.holding}: the send starts then` : null;
}
