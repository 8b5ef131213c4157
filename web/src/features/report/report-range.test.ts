import { describe, expect, it } from 'vitest';
import { quickRange, quickRangeOf, reversedText } from './report-range.ts';

const now = new Date(2026, 10, 25, 15, 30); // 25 Nov 2026, local time

describe('quick ranges', () => {
  it('count today in: today, the last 7 and 30 days, this month', () => {
    expect(quickRange('today', now)).toEqual({ from: '2026-11-25', to: '2026-11-25' });
    expect(quickRange('7d', now)).toEqual({ from: '2026-11-19', to: '2026-11-25' });
    expect(quickRange('30d', now)).toEqual({ from: '2026-10-27', to: '2026-11-25' });
    expect(quickRange('month', now)).toEqual({ from: '2026-11-01', to: '2026-11-25' });
    expect(quickRange('7d', new Date(2026, 2, 3))).toEqual({ from: '2026-02-25', to: '2026-03-03' });
  });

  it('knows which one a range is', () => {
    expect(quickRangeOf({ from: '2026-11-19', to: '2026-11-25' }, now)).toBe('7d');
    expect(quickRangeOf({ from: '2026-11-18', to: '2026-11-25' }, now)).toBeNull();
  });
});

describe('a reversed range', () => {
  it('is said, with both days as en-IN writes them', () => {
    expect(reversedText({ from: '2026-11-25', to: '2026-11-01' })).toBe(
      'From (25/11/2026) is after To (01/11/2026): no day is in this range. Swap the dates or change one of them.',
    );
    expect(reversedText({ from: '2026-11-01', to: '2026-11-01' })).toBeNull();
    expect(reversedText({ from: '2026-11-25', to: '' })).toBeNull();
  });
});
