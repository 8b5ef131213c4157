import { describe, expect, it } from 'vitest';
import { parseDateText, todayValue, toLocalDateTime } from './date-text.ts';

describe('parseDateText', () => {
  it('reads en-IN day-first dates with a 12- or 24-hour time', () => {
    expect(parseDateText('24/11/2026, 02:30 pm', true)).toBe('2026-11-24 14:30:00');
    expect(parseDateText('24/11/2026 2:30 PM', true)).toBe('2026-11-24 14:30:00');
    expect(parseDateText('24/11/2026, 12:05 am', true)).toBe('2026-11-24 00:05:00');
    expect(parseDateText('24/11/2026 12:05 pm', true)).toBe('2026-11-24 12:05:00');
    expect(parseDateText('4-1-2027 09:15', true)).toBe('2027-01-04 09:15:00');
    expect(parseDateText('24/11/2026', false)).toBe('2026-11-24');
  });

  it('reads an ISO value too (what a datetime-local input held)', () => {
    expect(parseDateText('2026-11-24T14:30', true)).toBe('2026-11-24 14:30:00');
    expect(parseDateText('2026-11-24 14:30:00', true)).toBe('2026-11-24 14:30:00');
    expect(parseDateText('2026-11-24', false)).toBe('2026-11-24');
  });

  it('refuses what is not (yet) a real date and time', () => {
    expect(parseDateText('24/11/2026', true)).toBeNull();
    expect(parseDateText('24/11/20', false)).toBeNull();
    expect(parseDateText('31/02/2026', false)).toBeNull();
    expect(parseDateText('24/13/2026', false)).toBeNull();
    expect(parseDateText('24/11/2026 24:00', true)).toBeNull();
    expect(parseDateText('24/11/2026 13:00 pm', true)).toBeNull();
    expect(parseDateText('11/24/2026', false)).toBeNull();
    expect(parseDateText('tomorrow', false)).toBeNull();
  });

  it('gives values that new Date reads in local time', () => {
    expect(new Date(toLocalDateTime('2026-11-24 14:30:00')).getTime()).toBe(
      new Date(2026, 10, 24, 14, 30).getTime(),
    );
    expect(todayValue(new Date(2026, 0, 5, 23, 59))).toBe('2026-01-05');
  });
});
