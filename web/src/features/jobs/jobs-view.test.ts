import { parsePoll } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { jobProgressText } from '../../components/JobStatusBadge.tsx';
import { canRetry, emptyJobsText, jobTypeLabel, repeatLabel, retryRefusal, tabCount } from './jobs-view.ts';

describe('tabCount', () => {
  it("reads each tab's count from the server's summary; Active adds pending, processing and paused", () => {
    const summary = {
      jobs: 100_000,
      byStatus: { pending: 1, scheduled: 2, processing: 3, paused: 4, completed: 89_985, failed: 10_005 },
      recipients: 0,
      sent: 0,
      failed: 0,
    };
    expect(tabCount(summary, 'all')).toBe(100_000);
    expect(tabCount(summary, 'active')).toBe(8);
    expect(tabCount(summary, 'scheduled')).toBe(2);
    expect(tabCount(summary, 'failed')).toBe(10_005);
  });
});

describe('texts', () => {
  it('gives the empty texts', () => {
    expect(emptyJobsText('all')).toBe('No message jobs found. Send some messages to get started!');
    expect(emptyJobsText('completed')).toBe('No completed jobs found.');
  });
  it('prefixes scheduled types and formats progress', () => {
    expect(jobTypeLabel({ messageType: 'poll', isScheduled: true })).toBe('Scheduled poll');
    expect(jobTypeLabel({ messageType: 'text', isScheduled: false })).toBe('text');
    const results = { success: 1, failed: 0, delivered: 0, read: 0 };
    const running = {
      status: 'processing' as const,
      statusReason: null,
      results,
      progress: { completed: 1, total: 3, percentComplete: 33 },
    };
    expect(jobProgressText(running)).toBe('1 / 3 (33%)');
    // A job that ended with failures counts what was sent: 7 of 8, not 8 / 8 (100%).
    const partly = {
      status: 'failed' as const,
      statusReason: null,
      results: { success: 7, failed: 1, delivered: 0, read: 0 },
      progress: { completed: 8, total: 8, percentComplete: 100 },
    };
    expect(jobProgressText(partly)).toBe('7 / 8 (88%)');
    expect(jobProgressText(partly, 'of')).toBe('7 of 8 (88%)');
    expect(jobProgressText({ ...partly, status: 'processing' })).toBe('8 / 8 (100%)');
  });
});

describe('retry', () => {
  it('is offered for failed jobs with failures a retry may fix only', () => {
    const failed = { status: 'failed' as const, results: { success: 1, failed: 1, delivered: 0, read: 0 } };
    expect(canRetry(failed, 1)).toBe(true);
    // 'Not on WhatsApp' only: a retry would fail again; not known yet: not offered.
    expect(canRetry(failed, 0)).toBe(false);
    expect(canRetry(failed, undefined)).toBe(false);
    expect(canRetry({ status: 'failed', results: { success: 1, failed: 0, delivered: 0, read: 0 } }, 1)).toBe(
      false,
    );
    expect(
      canRetry({ status: 'completed', results: { success: 1, failed: 1, delivered: 0, read: 0 } }, 1),
    ).toBe(false);
  });
  it('is refused without a session or credits for every failed item', () => {
    expect(retryRefusal(1, 5, false)).toBe('No active session found');
    expect(retryRefusal(3, 2, true)).toBe('Your Credit Balance is lower than the message count');
    expect(retryRefusal(2, 2, true)).toBeNull();
  });
});

describe('parsePoll', () => {
  it('reads the stored JSON and refuses anything else', () => {
    expect(
      parsePoll(
        JSON.stringify({ pollName: 'Q', pollOptions: ['a', 'b'], options: { allowMultipleAnswers: true } }),
      ),
    ).toEqual({ pollName: 'Q', pollOptions: ['a', 'b'], allowMultipleAnswers: true });
    expect(parsePoll('plain text')).toBeNull();
  });
});

describe('repeatLabel', () => {
  const series = { seriesId: 's1', every: 'week' as const, until: '2026-11-30T18:29:59.999Z', active: true };
  it('says how often and until when a series goes on, nothing once it ended or for a one-off job', () => {
    expect(repeatLabel({ repeat: series })).toBe(
      `Repeats weekly until ${new Date(series.until).toLocaleDateString('en-IN')}`,
    );
    expect(repeatLabel({ repeat: { ...series, every: 'day', until: null } })).toBe('Repeats daily');
    expect(repeatLabel({ repeat: { ...series, every: 'month', until: null } })).toBe('Repeats monthly');
    expect(repeatLabel({ repeat: { ...series, active: false } })).toBeNull();
    expect(repeatLabel({ repeat: null })).toBeNull();
    expect(repeatLabel({})).toBeNull();
  });
});
