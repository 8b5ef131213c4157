import { describe, expect, it } from 'vitest';
import { repeatChoice } from './ScheduleModal.tsx';

describe('the schedule modal repeat choice', () => {
  const at = new Date(2026, 10, 24, 10, 0);
  it('gives no repeat, a repeat without end, or one until the end of the chosen local day', () => {
    expect(repeatChoice('none', '2026-12-01', at)).toEqual({ repeat: null, problem: null });
    expect(repeatChoice('week', '', at)).toEqual({ repeat: { every: 'week' }, problem: null });
    expect(repeatChoice('month', '2026-12-24', at)).toEqual({
      repeat: { every: 'month', until: new Date(2026, 11, 24, 23, 59, 59, 999).toISOString() },
      problem: null,
    });
    // The schedule day itself is a valid end (one occurrence).
    expect(repeatChoice('day', '2026-11-24', at).problem).toBeNull();
  });

  it("refuses an end before the schedule time with the server's text", () => {
    expect(repeatChoice('day', '2026-11-23', at)).toEqual({
      repeat: null,
      problem: 'repeat.until must be a date and time after scheduleTime',
    });
  });
});
