import { contentText, type JobsSummary, type MessageJob, repeatText } from '@wa/contract';

/** The filter tabs of spec section 2; Active covers pending and processing (section 4), and paused. */
export const JOB_FILTERS = [
  { value: 'all', label: 'All Jobs' },
  { value: 'active', label: 'Active' },
  { value: 'completed', label: 'Completed' },
  { value: 'failed', label: 'Failed' },
  { value: 'scheduled', label: 'Scheduled' },
] as const;

export type JobFilter = (typeof JOB_FILTERS)[number]['value'];

/** A tab's count from the list answer's summary (Active: pending, processing and paused, as the server's `active`). */
export function tabCount(summary: JobsSummary, filter: JobFilter): number {
  const by = summary.byStatus;
  switch (filter) {
    case 'all':
      return summary.jobs;
    case 'active':
      return by.pending + by.processing + by.paused;
    default:
      return by[filter];
  }
}

export function emptyJobsText(filter: JobFilter): string {
  return filter === 'all'
    ? 'No message jobs found. Send some messages to get started!'
    : `No ${filter} jobs found.`;
}

/** The Type column: the message type, prefixed 'Scheduled ' for scheduled jobs. */
export const jobTypeLabel = (job: Pick<MessageJob, 'messageType' | 'isScheduled'>): string =>
  `${job.isScheduled ? 'Scheduled ' : ''}${job.messageType}`;

/** 'completed / total (percent%)' of the Progress column. */
export const progressLabel = (job: Pick<MessageJob, 'progress'>): string =>
  `${job.progress.completed} / ${job.progress.total} (${Math.round(job.progress.percentComplete)}%)`;

/** 'Retry Failed' is offered only for failed jobs that have failed items. */
export const canRetry = (job: Pick<MessageJob, 'status' | 'results'>): boolean =>
  job.status === 'failed' && job.results.failed > 0;

export const CREDIT_SHORT = 'Your Credit Balance is lower than the message count';

/** Client-side refusal of a retry (spec section 5), or null when it may go to the server. */
export function retryRefusal(failed: number, balance: number, hasSession: boolean): string | null {
  if (!hasSession) return 'No active session found';
  if (failed > balance) return CREDIT_SHORT;
  return null;
}

export type PollView = { pollName: string; pollOptions: string[]; allowMultipleAnswers: boolean };

/** A poll job's content is the JSON text of `{ pollName, pollOptions, options }`. */
export function parsePoll(content: string): PollView | null {
  try {
    const v = JSON.parse(content) as {
      pollName?: unknown;
      pollOptions?: unknown;
      options?: { allowMultipleAnswers?: unknown };
    };
    if (typeof v?.pollName !== 'string') return null;
    return {
      pollName: v.pollName,
      pollOptions: Array.isArray(v.pollOptions) ? v.pollOptions.filter((o) => typeof o === 'string') : [],
      allowMultipleAnswers: v.options?.allowMultipleAnswers === true,
    };
  } catch {
    return null;
  }
}

/** 'Pause' for a job that runs or waits for its time; 'Resume' for a paused one. */
export const canPause = (job: Pick<MessageJob, 'status'>): boolean =>
  job.status === 'pending' || job.status === 'processing' || job.status === 'scheduled';
export const canResume = (job: Pick<MessageJob, 'status'>): boolean => job.status === 'paused';

/** 'Repeats weekly until 30/11/2026' for an occurrence of a series that goes on; null otherwise. */
export function repeatLabel(job: Pick<MessageJob, 'repeat'>): string | null {
  if (!job.repeat?.active) return null;
  const until = job.repeat.until ? new Date(job.repeat.until).toLocaleDateString('en-IN') : null;
  return repeatText(job.repeat.every, until);
}

/** A line of the job's message: the text or caption, the poll's question, or the file's name. */
export function messagePreview(job: Pick<MessageJob, 'messageType' | 'messageContent' | 'fileName'>): string {
  const text = contentText(job).replace(/\s+/g, ' ').trim();
  return text || job.fileName || '';
}

/** When a scheduled job is (or was) to be sent, in the browser's zone; null for a job sent at once. */
export function scheduledFor(
  job: Pick<MessageJob, 'isScheduled' | 'scheduledTime'>,
  format: (iso: string) => string,
): string | null {
  return job.isScheduled && job.scheduledTime ? format(job.scheduledTime) : null;
}
