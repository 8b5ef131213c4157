import { describe, expect, it } from 'vitest';
import { bodyOf, checkPolicy, fieldOfServerMessage, formOf, type PolicyForm } from './policy-form.ts';

const defaults = formOf({
  dailyLimit: null,
  warmUp: true,
  quietHours: null,
  timezone: 'Asia/Kolkata',
  delayMinMs: 3000,
  delayMaxMs: 8000,
  typing: true,
});
const withForm = (over: Partial<PolicyForm>): PolicyForm => ({ ...defaults, ...over });

describe('account settings form', () => {
  it('sends an empty daily limit as no limit, and quiet hours only when switched on', () => {
    expect(bodyOf(defaults)).toEqual({
      dailyLimit: null,
      warmUp: true,
      quietHours: null,
      timezone: 'Asia/Kolkata',
      delayMinMs: 3000,
      delayMaxMs: 8000,
      typing: true,
    });
    const checked = checkPolicy(
      withForm({ dailyLimit: 30, quietHours: true, quietStart: '22:00', quietEnd: '07:30' }),
    );
    expect(checked.policy).toMatchObject({ dailyLimit: 30, quietHours: { start: '22:00', end: '07:30' } });
  });

  it("puts the contract's messages next to their fields", () => {
    const { problems } = checkPolicy(
      withForm({ dailyLimit: 0, delayMinMs: 9000, delayMaxMs: 700_000, timezone: 'Mars/Olympus' }),
    );
    expect(problems).toEqual({
      dailyLimit: 'dailyLimit must be a whole number from 1 to 100,000, or null for no limit',
      delayMaxMs: 'delayMaxMs must be a whole number of milliseconds from 0 to 600,000',
      timezone: 'timezone must be an IANA time zone name such as Asia/Kolkata',
    });
    expect(checkPolicy(withForm({ delayMinMs: 9000 })).problems).toEqual({
      delayMinMs: 'delayMinMs must not be above delayMaxMs',
    });
    expect(checkPolicy(withForm({ delayMinMs: '' })).problems).toEqual({
      delayMinMs: 'delayMinMs must be a whole number of milliseconds from 0 to 600,000',
    });
    expect(
      checkPolicy(withForm({ quietHours: true, quietStart: '09:00', quietEnd: '09:00' })).problems,
    ).toEqual({
      quietHours: 'quietHours.start and quietHours.end must differ',
    });
    expect(checkPolicy(withForm({ quietHours: true, quietStart: '' })).problems).toEqual({
      'quietHours.start': 'quietHours.start must be a time as HH:MM (00:00 to 23:59)',
    });
  });

  it('finds the field a server message is about, or none', () => {
    expect(fieldOfServerMessage('delayMinMs must not be above delayMaxMs')).toBe('delayMinMs');
    expect(fieldOfServerMessage('quietHours.end must be a time as HH:MM (00:00 to 23:59)')).toBe(
      'quietHours.end',
    );
    expect(fieldOfServerMessage('No active session found')).toBeNull();
  });
});
