import { type Account, LINKED_PHONE_CAPABILITIES } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { affordable, chargeShares, kindsOf } from './send-cost.ts';

const account = (accountId: string, capabilities: Account['capabilities']) =>
  ({ sessionId: accountId, capabilities }) as Account;
// A Cloud API number is connected with credentials (no pairing) and sends templates.
const CLOUD = {
  ...LINKED_PHONE_CAPABILITIES,
  groups: false,
  createGroups: false,
  templates: true,
  pairing: false,
};
const accounts = [
  account('phone_1', LINKED_PHONE_CAPABILITIES),
  account('cloud_1', CLOUD),
  account('phone_2', LINKED_PHONE_CAPABILITIES),
];

describe('what a send costs by the kinds of its accounts', () => {
  it('reads each account’s price kind from its capabilities: a Cloud API number, or a linked phone', () => {
    expect(kindsOf(accounts, ['phone_1', 'cloud_1', 'phone_2'])).toEqual(['linked', 'cloud', 'linked']);
    expect(kindsOf(accounts, [null])).toEqual(['linked']);
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
