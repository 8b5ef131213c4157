import type { HealthSignals } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import {
  breakerTrips,
  coolingMs,
  NO_SIGNALS,
  protectReason,
  ramp,
  scoreHealth,
  stateOf,
} from '../../src/accounts/health/score.ts';
import { warmUpHeld } from '../../src/accounts/health/service.ts';
import { decide, resolvePolicy, WATCH_DAILY_LIMIT } from '../../src/messaging/limits/allowance.ts';

const s = (over: Partial<HealthSignals>): HealthSignals => ({ ...NO_SIGNALS, ...over });
/** `n` one-to-one messages sent, looked up and found. */
const sent = (n: number) => ({ sent: n, oneToOneSent: n, lookups: n });

describe('the account health score', () => {
  it.each<[string, Partial<HealthSignals>, number, string | null]>([
    ['no traffic at all', {}, 100, null],
    ['100 clean sends with 5% replies', { ...sent(100), replies: 5 }, 100, null],
    // Rates are read from 20 outcomes on: 2 failures of 3 say nothing.
    ['2 failures among 3 outcomes', { sent: 1, oneToOneSent: 1, lookups: 1, failed: 2 }, 100, null],
    // 20 of 100 outcomes failed: (0.2 - 0.05) / 0.45 × 65 = 21.7.
    ['a 20% failure rate', { ...sent(80), failed: 20, replies: 4 }, 78, '20% of messages failed'],
    ['a 60% failure rate', { ...sent(40), failed: 60, replies: 2 }, 35, '60% of messages failed'],
    // 30 of 100 looked up: (0.3 - 0.1) / 0.4 × 65 = 32.5.
    [
      '30% of numbers not on WhatsApp',
      { sent: 70, oneToOneSent: 70, lookups: 100, notOnWhatsApp: 30, replies: 4 },
      68,
      '30% of the numbers looked up are not on WhatsApp',
    ],
    [
      'every number not on WhatsApp (a scraped list)',
      { lookups: 25, notOnWhatsApp: 25 },
      35,
      '100% of the numbers looked up are not on WhatsApp',
    ],
    [
      '30% undelivered',
      { ...sent(100), undelivered: 30, replies: 5 },
      75,
      '30% of messages were not delivered',
    ],
    ['3% replied STOP', { ...sent(100), stops: 3, replies: 5 }, 75, '3% of recipients replied STOP'],
    ['no replies over 100 messages', sent(100), 85, null],
    ['no replies and 2% STOP over 100', { ...sent(100), stops: 2 }, 73, 'Only 0% of recipients replied'],
    ['one 463', { restrictions: 1 }, 75, 'WhatsApp restricted new chats once'],
    ['three 463s', { restrictions: 3 }, 35, 'WhatsApp restricted new chats 3 times'],
    ['two 429s', { rateLimited: 2 }, 90, null],
    ['3 disconnects (free)', { disconnects: 3 }, 100, null],
    ['8 disconnects', { disconnects: 8 }, 75, 'The connection dropped 8 times'],
    ['500 new contacts in a day', { ...sent(500), newContacts: 500, replies: 25 }, 80, null],
    [
      'a 463 and 30% not on WhatsApp',
      { sent: 70, oneToOneSent: 70, lookups: 100, notOnWhatsApp: 30, replies: 4, restrictions: 1 },
      43,
      '30% of the numbers looked up are not on WhatsApp',
    ],
  ])('%s', (_, signals, score, reason) => {
    expect(scoreHealth(s(signals))).toEqual({ score, reason });
  });

  it('never leaves 0-100', () => {
    const worst = s({ ...sent(100), failed: 900, undelivered: 100, notOnWhatsApp: 900, lookups: 1000 });
    expect(scoreHealth({ ...worst, restrictions: 9, rateLimited: 9, disconnects: 20, stops: 50 }).score).toBe(
      0,
    );
  });

  it('ramps between where a signal starts to matter and its worst', () => {
    expect([ramp(0.05, 0.1, 0.5, 40), ramp(0.3, 0.1, 0.5, 40).toFixed(6), ramp(0.9, 0.1, 0.5, 40)]).toEqual([
      0,
      '20.000000',
      40,
    ]);
  });

  it.each<[number, boolean, 'good' | 'watch' | 'paused', boolean]>([
    [100, false, 'good', false],
    [80, false, 'good', false],
    [79, false, 'watch', false],
    [40, false, 'watch', false],
    [39, false, 'watch', true],
    [39, true, 'paused', false],
    [95, true, 'paused', false],
  ])('score %i, paused %s → %s, breaker trips: %s', (score, paused, state, trips) => {
    expect(stateOf(score, paused)).toBe(state);
    expect(breakerTrips(score, paused)).toBe(trips);
  });

  it('words the pause as the issue asks', () => {
    expect(protectReason('60% of messages failed')).toBe(
      'Paused to protect this account: 60% of messages failed',
    );
    expect(protectReason('WhatsApp restricted new chats 3 times')).toBe(
      'Paused to protect this account: WhatsApp restricted new chats 3 times',
    );
    const day = 86_400_000;
    expect(protectReason('60% of messages failed', day, day)).toBe(
      'Paused to protect this account: 60% of messages failed',
    );
    expect(protectReason('60% of messages failed', 2 * day, day)).toBe(
      'Paused to protect this account: 60% of messages failed; paused again within a day, so for twice as long',
    );
    expect(protectReason(null, 4 * 60_000, 60_000)).toBe(
      'Paused to protect this account: its health score is too low; paused again within a day, so for 4 times as long',
    );
    expect(protectReason(null, 7 * day, day)).toBe(
      'Paused to protect this account: its health score is too low; paused again within a day, so for a week',
    );
  });

  it.each([
    [0, 86_400_000],
    [1, 2 * 86_400_000],
    [2, 4 * 86_400_000],
    [3, 7 * 86_400_000],
    [40, 7 * 86_400_000],
  ])('cools a day after %i earlier pauses in the window for %i ms', (earlier, ms) => {
    expect(coolingMs(86_400_000, earlier)).toBe(ms);
  });
});

describe('warm-up advances only while the account is healthy', () => {
  it.each<
    [string, { warmUpHeldDays: number; warmUpDayChecked: string | null } | undefined, string, boolean, number]
  >([
    ['first check', undefined, '2026-11-25', false, 0],
    ['same day, not healthy', { warmUpHeldDays: 0, warmUpDayChecked: '2026-11-25' }, '2026-11-25', false, 0],
    ['a new day, healthy', { warmUpHeldDays: 1, warmUpDayChecked: '2026-11-24' }, '2026-11-25', true, 1],
    ['a new day on watch', { warmUpHeldDays: 1, warmUpDayChecked: '2026-11-24' }, '2026-11-25', false, 2],
    [
      'three days unseen, paused',
      { warmUpHeldDays: 0, warmUpDayChecked: '2026-11-22' },
      '2026-11-25',
      false,
      3,
    ],
  ])('%s', (_, stored, today, healthy, held) => {
    expect(warmUpHeld(stored, today, healthy)).toEqual({ warmUpHeldDays: held, warmUpDayChecked: today });
  });
});

describe('the sending gate under the account health', () => {
  const defaults = { sendDelayMinMs: 0, sendDelayMaxMs: 0, warmUpDefault: false };
  const noon = new Date('2026-11-25T06:30:00Z'); // 12:00 in Kolkata
  const linked = new Date('2026-11-24T06:30:00Z'); // day 2 of the warm-up: 50 a day
  const base = resolvePolicy(undefined, defaults);
  const warm = resolvePolicy(undefined, { ...defaults, warmUpDefault: true });
  const good = { state: 'good' as const, warmUpHeldDays: 0 };
  const watch = { state: 'watch' as const, warmUpHeldDays: 0 };

  it('caps new contacts at 50 a day by default while warm-up is on, and not without it', () => {
    expect(warm.newContactsPerDay).toBe(50);
    expect(base.newContactsPerDay).toBeNull();
    expect(
      resolvePolicy({ newContactsPerDay: 0, warmUp: true } as never, defaults).newContactsPerDay,
    ).toBeNull();
    expect(resolvePolicy({ newContactsPerDay: 7, warmUp: false } as never, defaults).newContactsPerDay).toBe(
      7,
    );
  });

  it.each<[string, Parameters<typeof decide>, ReturnType<typeof decide>]>([
    [
      'good: nothing lowered',
      [{ ...base, dailyLimit: 100 }, null, { all: 99, oneToOne: 99 }, noon, good],
      { kind: 'open', scope: 'all' },
    ],
    [
      'watch halves the daily limit',
      [{ ...base, dailyLimit: 100 }, null, { all: 50, oneToOne: 50 }, noon, watch],
      {
        kind: 'held',
        reason:
          "Waiting: daily limit of 50 (lowered while this account's health is on watch) reached, resumes at 00:00",
        until: new Date('2026-11-25T18:30:00Z'),
      },
    ],
    [
      'watch with no daily limit caps the day',
      [base, null, { all: WATCH_DAILY_LIMIT, oneToOne: 0 }, noon, watch],
      {
        kind: 'held',
        reason: `Waiting: daily limit of ${WATCH_DAILY_LIMIT} (lowered while this account's health is on watch) reached, resumes at 00:00`,
        until: new Date('2026-11-25T18:30:00Z'),
      },
    ],
    [
      'watch halves the warm-up',
      [{ ...warm, newContactsPerDay: null }, linked, { all: 25, oneToOne: 25 }, noon, watch],
      {
        kind: 'open',
        scope: 'groups',
        reason:
          "Waiting: warm-up limit of 25 messages a day (lowered while this account's health is on watch) reached, resumes at 00:00",
        until: new Date('2026-11-25T18:30:00Z'),
      },
    ],
    [
      'the warm-up held back a step: day 4 counts as day 3',
      [
        { ...warm, newContactsPerDay: null },
        new Date('2026-11-22T06:30:00Z'),
        { all: 50, oneToOne: 50 },
        noon,
        { state: 'good', warmUpHeldDays: 1 },
      ],
      {
        kind: 'open',
        scope: 'groups',
        reason: 'Waiting: warm-up limit of 50 messages a day reached, resumes at 00:00',
        until: new Date('2026-11-25T18:30:00Z'),
      },
    ],
    [
      'day 4 not held: 150 a day',
      [
        { ...warm, newContactsPerDay: null },
        new Date('2026-11-22T06:30:00Z'),
        { all: 50, oneToOne: 50 },
        noon,
        good,
      ],
      { kind: 'open', scope: 'all' },
    ],
    [
      'the new-contact cap reached: new numbers wait, groups and known numbers go on',
      [{ ...base, newContactsPerDay: 5 }, null, { all: 9, oneToOne: 9, newContacts: 5 }, noon, good],
      {
        kind: 'open',
        scope: 'known',
        reason: 'Waiting: new-contact limit of 5 a day reached, resumes at 00:00',
        until: new Date('2026-11-25T18:30:00Z'),
      },
    ],
    [
      'known contacts do not count against it',
      [{ ...base, newContactsPerDay: 5 }, null, { all: 90, oneToOne: 90, newContacts: 4 }, noon, good],
      { kind: 'open', scope: 'all' },
    ],
  ])('%s', (_, args, decision) => {
    expect(decide(...args)).toEqual(decision);
  });
});
