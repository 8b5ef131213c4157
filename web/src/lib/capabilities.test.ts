import { CLOUD_API_CAPABILITIES, LINKED_PHONE_CAPABILITIES } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { can, priceKindOf, sendsTemplates } from './capabilities.ts';

const CLOUD = CLOUD_API_CAPABILITIES;

describe('capabilities', () => {
  it("reads what an account can do from its capabilities, never from its kind's name", () => {
    const cloud = { capabilities: CLOUD };
    const phone = { capabilities: LINKED_PHONE_CAPABILITIES };
    expect(can(cloud, 'groups')).toBe(false);
    expect(can(cloud, 'createGroup')).toBe(false);
    expect(can(cloud, 'templates')).toBe(true);
    expect(can(cloud, 'individuals')).toBe(true);
    expect(can(phone, 'groups')).toBe(true);
    expect(can(phone, 'status')).toBe(true);
    expect(can(phone, 'createGroup')).toBe(true);
    expect(can(phone, 'templates')).toBe(false);
    expect(sendsTemplates(cloud)).toBe(true);
    expect(sendsTemplates(phone)).toBe(false);
  });

  it('prices an account linked by a QR or a code as a linked phone, one connected with credentials as a Cloud API number', () => {
    expect(priceKindOf({ capabilities: CLOUD })).toBe('cloud');
    expect(priceKindOf({ capabilities: LINKED_PHONE_CAPABILITIES })).toBe('linked');
    expect(priceKindOf(undefined)).toBe('linked');
    // An answer without capabilities: a linked phone's.
    expect(priceKindOf({})).toBe('linked');
    expect(can({}, 'channels')).toBe(true);
  });
});
