import { describe, expect, it } from 'vitest';
import { resultBanner } from './send-result.ts';

const job = (status: 'completed' | 'failed', success: number, failed: number) => ({
  status,
  results: { success, failed, delivered: 0, read: 0 },
});

describe('resultBanner', () => {
  it('gives the group page its success and failure texts', () => {
    expect(resultBanner(job('completed', 3, 0), 'groups')).toEqual({
      color: 'green',
      text: 'Message sending complete! Successfully sent to 3 groups.',
    });
    expect(resultBanner(job('failed', 2, 1), 'groups').text).toBe(
      'Message sending failed. Successfully sent to 2 groups. Failed for 1 groups. You can retry failed messages from the Jobs page.',
    );
    expect(resultBanner(job('failed', 0, 0), 'groups').text).toBe(
      'Message sending failed. Successfully sent to 0 groups. Failed for 0 groups.',
    );
  });
  it('gives the bulk page its own two texts', () => {
    expect(resultBanner(job('completed', 3, 0), 'individuals').text).toBe('Message sending Initiated');
    expect(resultBanner(job('failed', 2, 1), 'individuals').text).toBe('Message sending Failed');
  });
});
