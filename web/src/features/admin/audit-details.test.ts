import { describe, expect, it } from 'vitest';
import { auditDetails } from './audit-details.ts';

describe('audit details in words', () => {
  it('labels the API field names and speaks the 0/1 flags', () => {
    expect(
      auditDetails({
        details: {
          name: 'Asha Rao',
          is_bulk_messaging_enabled: 1,
          is_multisession_supported: 0,
          credits: 50,
        },
      }),
    ).toBe('Name: Asha Rao, Bulk messaging: Yes, Several accounts: No, Credits: 50');
  });

  it('puts an unknown field in words and lists arrays', () => {
    expect(auditDetails({ details: { someNewField: 'x', events: ['job.completed', 'job.failed'] } })).toBe(
      'Some new field: x, Events: job.completed, job.failed',
    );
  });

  it('is empty without details', () => {
    expect(auditDetails({ details: null })).toBe('');
  });
});
