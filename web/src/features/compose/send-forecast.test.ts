import type { AccountPolicyResponse } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { sendForecast } from './send-forecast.ts';

type Today = AccountPolicyResponse['today'];
const policy = (today: Partial<Today>, holding: string | null = null) => ({
  today: {
    sent: 0,
    oneToOneSent: 0,
    limit: null,
    warmUpLimit: null,
    resetsAt: '2026-11-25T18:30:00.000Z',
    ...today,
  },
  holding,
});
const at = () => '00:00';

describe('sendForecast', () => {
  it("says how many go today under the warm-up, counting today's one-to-one messages", () => {
    expect(sendForecast(120, 'individuals', policy({ sent: 4, oneToOneSent: 4, warmUpLimit: 50 }), at)).toBe(
      '46 today, the rest from tomorrow 00:00 (warm-up: 50 a day)',
    );
    expect(
      sendForecast(46, 'individuals', policy({ sent: 4, oneToOneSent: 4, warmUpLimit: 50 }), at),
    ).toBeNull();
    // Group messages are not capped by the warm-up.
    expect(sendForecast(120, 'groups', policy({ sent: 4, oneToOneSent: 4, warmUpLimit: 50 }), at)).toBeNull();
  });

  it('takes the tighter of the daily limit and the warm-up, and none left today', () => {
    expect(
      sendForecast(10, 'individuals', policy({ sent: 30, oneToOneSent: 10, limit: 30, warmUpLimit: 50 }), at),
    ).toBe('None today: all from tomorrow 00:00 (daily limit: 30 a day)');
    expect(sendForecast(10, 'groups', policy({ sent: 25, limit: 30 }), at)).toBe(
      '5 today, the rest from tomorrow 00:00 (daily limit: 30 a day)',
    );
  });

  it('says why the account waits now when nothing caps the send', () => {
    expect(sendForecast(3, 'individuals', policy({}, 'Waiting: quiet hours until 09:00'), at)).toBe(
      'Waiting: quiet hours until 09:00: the send starts then',
    );
    expect(sendForecast(3, 'individuals', undefined, at)).toBeNull();
  });
});
