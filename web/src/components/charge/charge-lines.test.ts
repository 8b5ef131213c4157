import type { AccountPolicyResponse } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { firstOfPlan, lastDay, planRuns, sendPlan, todayCount } from '../../lib/send-plan.ts';
import { costLine, creditsOf, lastGoesText, shareLines } from './charge-lines.ts';

const day = (i: number, warmUpLimit: number | null, newContactsLimit: number | null = null) => ({
  // Local midnights, as the server gives them for an account in the browser's zone.
  startsAt: new Date(2026, 10, 29 + i).toISOString(),
  limit: null,
  warmUpLimit,
  newContactsLimit,
});
const policy = (over: Partial<AccountPolicyResponse['today']>, nextDays = [day(0, 25)]) => ({
  today: {
    sent: 0,
    oneToOneSent: 0,
    limit: null,
    warmUpLimit: null,
    resetsAt: nextDays[0]!.startsAt,
    ...over,
  },
  nextDays,
});

describe('the credits of a charge, per kind of account', () => {
  it('prices each kind, exact when its count is known, a range when the server splits', () => {
    const both = [
      { kind: 'linked' as const, price: 1, recipients: 5 },
      { kind: 'cloud' as const, price: 2, recipients: 3 },
    ];
    expect(creditsOf(8, both)).toEqual({ min: 11, max: 11 });
    expect(shareLines(8, both)).toEqual([
      'Linked phone: 5 × 1 credit = 5 credits',
      'Cloud API account: 3 × 2 credits = 6 credits',
    ]);
    // Sending fewer cuts the known counts in order.
    expect(creditsOf(6, both)).toEqual({ min: 7, max: 7 });
    const split = both.map((s) => ({ ...s, recipients: null }));
    expect(creditsOf(4, split)).toEqual({ min: 4, max: 8 });
    expect(shareLines(4, split)).toEqual([
      'Linked phone: 1 credit each',
      'Cloud API account: 2 credits each',
    ]);
  });

  it('gives recipients, credits and the balance after, in en-IN', () => {
    expect(costLine(3, 10)).toBe('3 recipients · 3 credits · balance after 7');
    expect(costLine(1, 1)).toBe('1 recipient · 1 credit · balance after 0');
    expect(costLine(120000, 250000)).toBe('1,20,000 recipients · 1,20,000 credits · balance after 1,30,000');
    expect(costLine(3, 20, { min: 3, max: 9 })).toBe('3 recipients · 3–9 credits · balance after 11–17');
  });
});

describe('when the last message goes', () => {
  it('counts a warming account day by day to the day of the last message, not "from tomorrow"', () => {
    // 2,000 numbers at 25 a day (the warm-up halved on watch): 10 today, then 80 more days.
    const plan = sendPlan(2000, 'individuals', policy({ oneToOneSent: 15, warmUpLimit: 25 }));
    expect(todayCount(plan)).toBe(10);
    expect(plan.days.reduce((n, d) => n + d.count, 0)).toBe(2000);
    expect(plan.days).toHaveLength(81);
    expect(plan.reason).toBe('warm-up: 25 a day');
    const text = lastGoesText({ count: 2000, plan, pace: null });
    expect(text).toMatch(/^The last message is expected to go on Tue, 16 Feb, 2027 \(warm-up: 25 a day\)$/);
    // Sending only what goes today: all go now.
    const fewer = firstOfPlan(plan, 10);
    expect(lastDay(fewer)).toBeNull();
    expect(lastGoesText({ count: 10, plan: fewer, pace: null })).toBe('All go now, one after another');
    expect(firstOfPlan(plan, 60).days.map((d) => d.count)).toEqual([10, 25, 25]);
    expect(planRuns(plan)).toEqual([
      'today: 10',
      'Sun, 29 Nov, 2026 to Mon, 15 Feb, 2027: 25 a day (1,975)',
      'Tue, 16 Feb, 2027: 15',
    ]);
  });

  it('follows the warm-up steps of the coming days and the new-number cap', () => {
    const days = [day(0, 50, 60), day(1, 150, 60), day(2, 150, 60)];
    const plan = sendPlan(200, 'individuals', policy({ warmUpLimit: 50, oneToOneSent: 50 }, days));
    expect(plan.days.map((d) => d.count)).toEqual([50, 60, 60, 30]);
    expect(plan.reason).toBe('new numbers: 60 a day');
    // Groups are not capped by the warm-up or the new-number cap: all go today.
    expect(sendPlan(200, 'groups', policy({ warmUpLimit: 50, oneToOneSent: 50 }, days)).days).toEqual([
      { startsAt: null, count: 200 },
    ]);
  });

  it('says how long the pace takes when all go today, and why the account waits', () => {
    const plan = sendPlan(20, 'individuals', policy({ warmUpLimit: 50 }));
    expect(lastGoesText({ count: 20, plan, pace: { delayMinMs: 3000, delayMaxMs: 8000 } })).toBe(
      "All go today: the last in about 2 minutes at this account's pace (3–8 s apart)",
    );
    expect(lastGoesText({ count: 20, plan, pace: { delayMinMs: 0, delayMaxMs: 0 } })).toBe(
      'All go now, one after another',
    );
    expect(lastGoesText({ count: 20, plan, pace: null, holding: 'Waiting: quiet hours until 09:00' })).toBe(
      'Waiting: quiet hours until 09:00: the send starts then. All go now, one after another',
    );
  });
});
