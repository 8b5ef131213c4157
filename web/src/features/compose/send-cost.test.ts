import type { Session } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { affordable, chargeShares, kindsOf } from './send-cost.ts';

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
  it('gives one share per kind: every recipient when one kind sends, the server’s split over kinds', () => {
    const prices = { linked: 1, cloud: 3 };
    expect(chargeShares(['linked', 'linked'], prices, 4)).toEqual([
      { kind: 'linked', price: 1, recipients: 4 },
    ]);
    expect(chargeShares(['linked', 'cloud'], prices, 4)).toEqual([
      { kind: 'linked', price: 1, recipients: null },
      { kind: 'cloud', price: 3, recipients: null },
    ]);
  });
  it('lets the selection grow only as far as the balance pays at the dearest price', () => {
    expect(affordable(10, [3])).toBe(3);
    expect(affordable(10, [1, 4])).toBe(2);
    expect(affordable(10, [1])).toBe(10);
  });
});
