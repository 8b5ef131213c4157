import { describe, expect, it } from 'vitest';
import { decide, resolvePolicy, typingMs } from '../../src/messaging/limits/allowance.ts';
import {
  insideWindow,
  localDayNumber,
  localDayStart,
  nextLocalTime,
} from '../../src/messaging/limits/clock.ts';

const at = (iso: string) => new Date(iso);
const minuteAfter = (hhmm: string) => {
  const m = (Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5)) + 1) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
};

describe('wall-clock arithmetic in an account’s time zone', () => {
  it('finds the local day start and the next local time (India, no daylight saving)', () => {
    // 2026-11-23 02:00 UTC is 07:30 in Kolkata.
    expect(localDayStart(at('2026-11-23T02:00:00Z'), 'Asia/Kolkata').toISOString()).toBe(
      '2026-11-22T18:30:00.000Z',
    );
    expect(nextLocalTime(at('2026-11-23T02:00:00Z'), 'Asia/Kolkata', '09:00').toISOString()).toBe(
      '2026-11-23T03:30:00.000Z',
    );
    expect(nextLocalTime(at('2026-11-23T02:00:00Z'), 'Asia/Kolkata', '00:00').toISOString()).toBe(
      '2026-11-23T18:30:00.000Z',
    );
  });

  it('crosses a daylight-saving change (New York, 8 March 2026)', () => {
    // 07:00 local on the day clocks go forward is 11:00 UTC (EDT), midnight before it 05:00 UTC (EST).
    expect(nextLocalTime(at('2026-03-08T06:00:00Z'), 'America/New_York', '07:00').toISOString()).toBe(
      '2026-03-08T11:00:00.000Z',
    );
    expect(localDayStart(at('2026-03-08T15:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-03-08T05:00:00.000Z',
    );
  });

  it('reads the clock minute by minute across a daylight-saving change, in any order', () => {
    // New York, 8 March 2026: 01:59 EST (06:59 UTC) is followed by 03:00 EDT (07:00 UTC).
    const tz = 'America/New_York';
    const minutes = Array.from({ length: 120 }, (_, i) => Date.UTC(2026, 2, 8, 6, 0) + i * 60_000);
    for (const m of [...minutes].reverse().concat(minutes)) {
      const when = new Date(m + 30_000);
      const wall = new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit' })
        .format(when)
        .replace(/^24/, '00');
      // The minute the clock shows is the one-minute window that holds the instant.
      expect(insideWindow(when, tz, wall, minuteAfter(wall))).toBe(true);
      expect(insideWindow(when, tz, minuteAfter(wall), minuteAfter(minuteAfter(wall)))).toBe(false);
    }
    expect(localDayStart(at('2026-03-08T07:30:00Z'), tz).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(nextLocalTime(at('2026-03-08T06:59:30Z'), tz, '03:00').toISOString()).toBe(
      '2026-03-08T07:00:00.000Z',
    );
  });

  it('tells a window that crosses midnight', () => {
    const tz = 'Asia/Kolkata';
    // 22:00-07:00 local: 23:30 and 06:59 inside, 07:00 and 12:00 outside.
    expect(insideWindow(at('2026-11-23T18:00:00Z'), tz, '22:00', '07:00')).toBe(true);
    expect(insideWindow(at('2026-11-23T01:29:00Z'), tz, '22:00', '07:00')).toBe(true);
    expect(insideWindow(at('2026-11-23T01:30:00Z'), tz, '22:00', '07:00')).toBe(false);
    expect(insideWindow(at('2026-11-23T06:30:00Z'), tz, '22:00', '07:00')).toBe(false);
    expect(insideWindow(at('2026-11-23T06:30:00Z'), tz, '09:00', '18:00')).toBe(true);
  });

  it('counts warm-up days from the local day of linking', () => {
    const linked = at('2026-11-20T17:00:00Z'); // 22:30 on the 20th in Kolkata: day 1
    expect(localDayNumber(linked, at('2026-11-20T18:00:00Z'), 'Asia/Kolkata')).toBe(1);
    expect(localDayNumber(linked, at('2026-11-20T19:00:00Z'), 'Asia/Kolkata')).toBe(2);
  });
});

describe('what an account may send now', () => {
  const defaults = { sendDelayMinMs: 3000, sendDelayMaxMs: 8000, warmUpDefault: true };
  const base = resolvePolicy(undefined, defaults);
  const noon = at('2026-11-23T06:30:00Z'); // 12:00 in Kolkata

  it('holds inside quiet hours until their end, and at the daily limit until midnight', () => {
    expect(
      decide({ ...base, quietHours: { start: '11:00', end: '13:30' } }, null, { all: 0, oneToOne: 0 }, noon),
    ).toEqual({
      kind: 'held',
      reason: 'Waiting: quiet hours until 13:30',
      until: at('2026-11-23T08:00:00Z'),
    });
    expect(decide({ ...base, dailyLimit: 30 }, null, { all: 30, oneToOne: 30 }, noon)).toEqual({
      kind: 'held',
      reason: 'Waiting: daily limit reached, resumes at 00:00',
      until: at('2026-11-23T18:30:00Z'),
    });
    expect(decide({ ...base, dailyLimit: 30 }, null, { all: 29, oneToOne: 29 }, noon).kind).toBe('open');
  });

  it('caps one-to-one chats by the warm-up table and lets groups go on', () => {
    const linked = at('2026-11-18T06:30:00Z'); // day 6: 150 a day
    expect(decide(base, linked, { all: 150, oneToOne: 150 }, noon)).toMatchObject({
      kind: 'open',
      scope: 'groups',
    });
    expect(decide(base, linked, { all: 200, oneToOne: 149 }, noon)).toEqual({
      kind: 'open',
      scope: 'all',
    });
    expect(decide({ ...base, warmUp: false }, linked, { all: 500, oneToOne: 500 }, noon).kind).toBe('open');
    expect(decide(base, at('2026-11-01T06:30:00Z'), { all: 900, oneToOne: 900 }, noon).kind).toBe('open');
  });

  it('types for 1-5 s by length, inside the pause, and not at all without one', () => {
    expect(typingMs(10, 8000)).toBe(1400);
    expect(typingMs(5000, 8000)).toBe(5000);
    expect(typingMs(0, 8000)).toBe(1000);
    expect(typingMs(100, 2000)).toBe(2000);
    expect(typingMs(100, 0)).toBe(0);
  });
});
