import { phoneOfAccount } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import {
  formatDateTime,
  formatGroupDate,
  formatKB,
  formatNumber,
  formatSeconds,
  toLocalInputValue,
} from './format.ts';
import { initials } from './initials.ts';

describe('formatNumber', () => {
  it('groups digits the Indian way (en-IN)', () => {
    expect(formatNumber(100000)).toBe('1,00,000');
    expect(formatNumber(12345678)).toBe('1,23,45,678');
    expect(formatNumber(999)).toBe('999');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(-2500)).toBe('-2,500');
  });
});

describe('formatGroupDate', () => {
  it('shows DD-MM-YYYY hh:mm with the real AM or PM', () => {
    expect(formatGroupDate(new Date(2026, 0, 5, 9, 7))).toBe('05-01-2026 09:07 AM');
    expect(formatGroupDate(new Date(2026, 10, 21, 15, 30))).toBe('21-11-2026 03:30 PM');
    expect(formatGroupDate(new Date(2026, 10, 21, 0, 0))).toBe('21-11-2026 12:00 AM');
    expect(formatGroupDate(new Date(2026, 10, 21, 12, 1))).toBe('21-11-2026 12:01 PM');
  });
  it('is empty for missing or invalid dates', () => {
    expect(formatGroupDate(null)).toBe('');
    expect(formatGroupDate('not a date')).toBe('');
  });
});

describe('formatDateTime', () => {
  it('shows local date and time and is empty for nothing', () => {
    expect(formatDateTime(new Date(2026, 10, 21, 15, 5, 9))).toMatch(/21\/11\/2026.*3:05:09/);
    expect(formatDateTime(undefined)).toBe('');
    expect(formatDateTime('garbage')).toBe('');
  });
});

describe('formatKB and formatSeconds', () => {
  it('gives KB with 2 decimals', () => {
    expect(formatKB(1536)).toBe('1.50 KB');
    expect(formatKB(0)).toBe('0.00 KB');
  });
  it('rounds elapsed time to seconds', () => {
    expect(formatSeconds(1499)).toBe('1s');
    expect(formatSeconds(1500)).toBe('2s');
  });
});

describe('phoneOfSession', () => {
  it('takes the part of the session id before the underscore', () => {
    expect(phoneOfAccount('919800000001_shop')).toBe('919800000001');
    expect(phoneOfAccount('919800000001')).toBe('919800000001');
  });
});

describe('toLocalInputValue', () => {
  it('formats a local minute for datetime-local inputs', () => {
    expect(toLocalInputValue(new Date(2026, 1, 3, 4, 5, 59))).toBe('2026-02-03T04:05');
  });
});

describe('initials', () => {
  it('takes the first letters of the first and last names', () => {
    expect(initials('Asha Rao')).toBe('AR');
    expect(initials('  ravi  kumar  singh ')).toBe('RS');
    expect(initials('admin')).toBe('A');
    expect(initials('')).toBe('?');
  });
});
