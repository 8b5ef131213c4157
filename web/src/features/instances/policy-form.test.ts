import { describe, expect, it } from 'vitest';
import {
  bodyOf,
  checkPolicy,
  fieldOfServerMessage,
  formOf,
  inFormWords,
  type PolicyForm,
} from './policy-form.ts';

const checkPolicyBase = {
  dailyLimit: null,
  warmUp: true,
  quietHours: null,
  timezone: 'Asia/Kolkata',
  delayMinMs: 3000,
  delayMaxMs: 8000,
  typing: true,
};
const defaults = formOf(checkPolicyBase);
const withForm = (over: Partial<PolicyForm>): PolicyForm => ({ ...defaults, ...over });

describe('account settings form', () => {
  it('sends an empty daily limit as no limit, and quiet hours only when switched on', () => {
    // What the form was made of, with no cap on new contacts.
    expect(bodyOf(defaults)).toEqual({ ...checkPolicyBase, newContactsPerDay: null });
    const checked = checkPolicy(
      withForm({ dailyLimit: 30, quietHours: true, quietStart: '22:00', quietEnd: '07:30' }),
    );
    expect(checked.policy).toMatchObject({ dailyLimit: 30, quietHours: { start: '22:00', end: '07:30' } });
  });

  it('sends the new-contact cap, empty as no cap, and words its problem for the form', () => {
    expect(formOf({ ...checkPolicyBase, newContactsPerDay: 50 }).newContactsPerDay).toBe(50);
    expect(checkPolicy(withForm({ newContactsPerDay: 5 })).policy).toMatchObject({ newContactsPerDay: 5 });
    expect(checkPolicy(withForm({ newContactsPerDay: 0 })).problems).toEqual({
      newContactsPerDay:
        'New contacts per day must be a whole number from 1 to 100,000 (leave it empty for no limit)',
    });
    const server = 'newContactsPerDay must be a whole number from 1 to 100,000, or null for no limit';
    expect(fieldOfServerMessage(server)).toBe('newContactsPerDay');
  });

  it('shows pauses in seconds and sends them in milliseconds', () => {
    expect(defaults).toMatchObject({ delayMinS: 3, delayMaxS: 8 });
    expect(bodyOf(withForm({ delayMinS: 1.5, delayMaxS: 2 }))).toMatchObject({
      delayMinMs: 1500,
      delayMaxMs: 2000,
    });
  });

  it("puts the contract's checks next to their fields, in the form's words (no 'null', no 'delayMaxMs')", () => {
    const { problems } = checkPolicy(
      withForm({ dailyLimit: 0, delayMinS: 9, delayMaxS: 700, timezone: 'Mars/Olympus' }),
    );
    expect(problems).toEqual({
      dailyLimit: 'Daily limit must be a whole number from 1 to 100,000 (leave it empty for no limit)',
      delayMaxMs: 'Pause to must be a number of seconds from 0 to 600',
      timezone: 'Choose a time zone from the list, such as Asia/Kolkata',
    });
    expect(checkPolicy(withForm({ delayMinS: 9 })).problems).toEqual({
      delayMinMs: 'Pause from must not be longer than Pause to',
    });
    expect(checkPolicy(withForm({ delayMinS: '' })).problems).toEqual({
      delayMinMs: 'Pause from must be a number of seconds from 0 to 600',
    });
    expect(
      checkPolicy(withForm({ quietHours: true, quietStart: '09:00', quietEnd: '09:00' })).problems,
    ).toEqual({
      quietHours: 'Quiet from and Quiet until must differ',
    });
    expect(checkPolicy(withForm({ quietHours: true, quietStart: '' })).problems).toEqual({
      'quietHours.start': 'Quiet from must be a time from 00:00 to 23:59',
    });
  });

  it('finds the field a server message is about, or none', () => {
    expect(inFormWords('delayMinMs', 'delayMinMs must not be above delayMaxMs')).toBe(
      'Pause from must not be longer than Pause to',
    );
    expect(fieldOfServerMessage('delayMinMs must not be above delayMaxMs')).toBe('delayMinMs');
    expect(fieldOfServerMessage('quietHours.end must be a time as HH:MM (00:00 to 23:59)')).toBe(
      'quietHours.end',
    );
    expect(fieldOfServerMessage('No active session found')).toBeNull();
  });
});
