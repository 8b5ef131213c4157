import type { Session } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { affordable, kindsOf, priceText, sendCredits } from './send-cost.ts';

const session = (sessionId: string, kind: Session['kind']) => ({ sessionId, kind }) as Session;
const sessions = [
  session('phone_1', 'simulator'),
  session('cloud_1', 'cloud'),
  session('phone_2', 'baileys'),
];

describe('what a send costs by the kinds of its accounts', () => {
  it('reads each account’s kind: a Cloud API number, or a linked phone (Baileys or the simulator)', () => {
    expect(kindsOf(sessions, ['phone_1', 'cloud_1', 'phone_2'])).toEqual(['linked', 'cloud', 'linked']);
    expect(kindsOf(sessions, [null])).toEqual(['linked']);
  });
  it('is exact over one kind and a range over kinds of different prices', () => {
    expect(sendCredits(4, [2])).toEqual({ min: 8, max: 8 });
    expect(sendCredits(4, [1, 3])).toEqual({ min: 4, max: 12 });
  });
  it('lets the selection grow only as far as the balance pays at the dearest price', () => {
    expect(affordable(10, [3])).toBe(3);
    expect(affordable(10, [1, 4])).toBe(2);
    expect(affordable(10, [1])).toBe(10);
  });
  it('says the price in words', () => {
    const prices = { linked: 1, cloud: 3 };
    expect(priceText(['linked'], prices)).toBe('Each recipient costs one credit');
    expect(priceText(['cloud'], prices)).toBe('Each recipient costs 3 credits');
    expect(priceText(['linked', 'cloud'], prices)).toBe(
      'Each recipient costs one credit through a linked phone and 3 credits through a Cloud API account',
    );
    expect(priceText(['linked', 'cloud'], { linked: 2, cloud: 2 })).toBe('Each recipient costs 2 credits');
  });
});
