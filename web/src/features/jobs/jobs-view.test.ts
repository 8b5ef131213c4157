import { describe, expect, it } from 'vitest';
import {
  canRetry,
  emptyJobsText,
  filterJobs,
  jobTypeLabel,
  parsePoll,
  progressLabel,
  retryRefusal,
} from './jobs-view.ts';

const jobs = (['pending', 'processing', 'scheduled', 'completed', 'failed'] as const).map((status) => ({
  status,
}));

describe('filterJobs', () => {
  it('Active covers pending and processing; the others match their status', () => {
    expect(filterJobs(jobs, 'all')).toHaveLength(5);
    expect(filterJobs(jobs, 'active').map((j) => j.status)).toEqual(['pending', 'processing']);
    expect(filterJobs(jobs, 'scheduled').map((j) => j.status)).toEqual(['scheduled']);
    expect(filterJobs(jobs, 'failed').map((j) => j.status)).toEqual(['failed']);
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
    expect(progressLabel({ progress: { completed: 1, total: 3, percentComplete: 33.33 } })).toBe(
      '1 / 3 (33%)',
    );
  });
});

describe('retry', () => {
  it('is offered for failed jobs with failed items only', () => {
    expect(canRetry({ status: 'failed', results: { success: 1, failed: 1, delivered: 0, read: 0 } })).toBe(
      true,
    );
    expect(canRetry({ status: 'failed', results: { success: 1, failed: 0, delivered: 0, read: 0 } })).toBe(
      false,
    );
    expect(canRetry({ status: 'completed', results: { success: 1, failed: 1, delivered: 0, read: 0 } })).toBe(
      false,
    );
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
