import { describe, expect, it } from 'vitest';
import { countsText, resultBanner } from './send-result.ts';

const job = (status: 'completed' | 'failed', success: number, failed: number) => ({
  status,
  results: { success, failed, delivered: 0, read: 0 },
});

describe('resultBanner', () => {
  it('gives the group page its success and failure texts, with the counts beside a failure', () => {
    expect(resultBanner(job('completed', 3, 0), 'groups')).toEqual({
      color: 'green',
      text: 'Message sending complete! Successfully sent to 3 groups.',
    });
    expect(resultBanner(job('failed', 19, 1), 'groups')).toEqual({
      color: 'yellow',
      text: 'Message sending failed. Successfully sent to 19 groups. Failed for 1 groups. You can retry failed messages from the Jobs page.',
      detail: '19 sent, 1 failed — Retry Failed in Message Jobs',
    });
    expect(resultBanner(job('failed', 0, 0), 'groups')).toEqual({
      color: 'red',
      text: 'Message sending failed. Successfully sent to 0 groups. Failed for 0 groups.',
      detail: '0 sent, 0 failed',
    });
  });

  it('gives the bulk page its own two texts, with the counts', () => {
    expect(resultBanner(job('completed', 3, 0), 'individuals')).toEqual({
      color: 'green',
      text: 'Message sending Initiated',
      detail: 'Every message was sent: 3 sent, 0 failed',
    });
    expect(resultBanner(job('failed', 2, 1), 'individuals')).toEqual({
      color: 'yellow',
      text: 'Message sending Failed',
      detail: '1 of 3 did not go: 2 sent, 1 failed — Retry Failed in Message Jobs',
    });
    expect(resultBanner(job('failed', 0, 4), 'individuals')).toEqual({
      color: 'red',
      text: 'Message sending Failed',
      detail: 'No message was sent: 0 sent, 4 failed — Retry Failed in Message Jobs',
    });
  });

  it('writes counts in the Indian format', () => {
    expect(countsText({ success: 123456, failed: 0 })).toBe('1,23,456 sent, 0 failed');
  });
});
