import {
  ACTIVE_JOB_STATUSES,
  isPausable,
  isResumable,
  type JobDetail,
  type JobsSummary,
  type MessageJob,
  messageText,
  rateText,
  repeatText,
  TEXTS,
} from '@wa/contract';

/** The filter tabs of the specification; Active covers pending and processing, and paused. */
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
      return ACTIVE_JOB_STATUSES.reduce((n, s) => n + by[s], 0);
    default:
      return by[filter];
  }
}

/**
 * Where partly sent jobs are, said on the two tabs a user looks in (docs/decisions.md, Job
 * status): under Failed, beside the Retry Failed that sends their failures again.
 */
export function tabHint(filter: JobFilter): string | null {
  if (filter === 'failed')
    return 'Every job with a failed message is here, partly sent ones too: Retry Failed sends their failures again.';
  if (filter === 'completed')
    return 'Jobs whose every message was sent. A partly sent job is under Failed, where Retry Failed can send its failures again.';
  return null;
}

export function emptyJobsText(filter: JobFilter): string {
  return filter === 'all'
    ? 'No message jobs found. Send some messages to get started!'
    : `No ${filter} jobs found.`;
}

/** The Type column: the message type, prefixed 'Scheduled ' for scheduled jobs. */
export const jobTypeLabel = (job: Pick<MessageJob, 'messageType' | 'isScheduled'>): string =>
  `${job.isScheduled ? 'Scheduled ' : ''}${job.messageType}`;

/**
 * 'Retry Failed' is offered only for failed jobs with failures a retry may fix (`retryable`, from
 * the server; unknown yet: not offered): 'Not on WhatsApp' would only fail again.
 */
export const canRetry = (
  job: Pick<MessageJob, 'status' | 'results'>,
  retryable: number | undefined,
): boolean => job.status === 'failed' && job.results.failed > 0 && (retryable ?? 0) > 0;

/** The ids of the jobs whose failures may be worth a retry: the server says how many are. */
export const jobsWithFailures = (jobs: readonly Pick<MessageJob, 'id' | 'status' | 'results'>[]): string[] =>
  jobs.filter((j) => j.status === 'failed' && j.results.failed > 0).map((j) => j.id);

export const CREDIT_SHORT = TEXTS.creditShort;

/** Client-side refusal of a retry (docs/decisions.md, Kept to the letter), or null when it may go to the server. */
export function retryRefusal(failed: number, balance: number, hasAccount: boolean): string | null {
  if (!hasAccount) return TEXTS.noSession;
  if (failed > balance) return CREDIT_SHORT;
  return null;
}

/** 'Pause' for a job that runs or waits for its time; 'Resume' for a paused one. */
export const canPause = (job: Pick<MessageJob, 'status'>): boolean => isPausable(job.status);
export const canResume = (job: Pick<MessageJob, 'status'>): boolean => isResumable(job.status);

/**
 * A job that has not started may be edited: scheduled, or paused before its
 * first message; not an occurrence of a series (it moves with its series).
 */
export const canEdit = (job: Pick<MessageJob, 'status' | 'progress' | 'repeat'>): boolean =>
  (job.status === 'scheduled' || (job.status === 'paused' && job.progress.completed === 0)) && !job.repeat;

/** What an edit does to the credits held, in words: '2 more credits charged', '1 credit refunded'. */
export function editCostText(before: number, after: number): string {
  const d = after - before;
  const credits = (n: number) => `${n} ${n === 1 ? 'credit' : 'credits'}`;
  if (d > 0) return `${credits(d)} more will be charged now`;
  if (d < 0) return `${credits(-d)} will be refunded now`;
  return 'The credits held stay as they are';
}

/** 'Repeats weekly until 30/11/2026' for an occurrence of a series that goes on; null otherwise. */
export function repeatLabel(job: Pick<MessageJob, 'repeat'>): string | null {
  if (!job.repeat?.active) return null;
  const until = job.repeat.until ? new Date(job.repeat.until).toLocaleDateString('en-IN') : null;
  return repeatText(job.repeat.every, until);
}

/** A line of the job's message: the text or caption, the poll's question, or the file's name. */
export function messagePreview(job: Pick<MessageJob, 'messageType' | 'messageContent' | 'fileName'>): string {
  return messageText(job).replace(/\s+/g, ' ').trim();
}

/** When a scheduled job is (or was) to be sent, in the browser's zone; null for a job sent at once. */
export function scheduledFor(
  job: Pick<MessageJob, 'isScheduled' | 'scheduledTime'>,
  format: (iso: string) => string,
): string | null {
  return job.isScheduled && job.scheduledTime ? format(job.scheduledTime) : null;
}

/**
 * What became of a job's sent messages, each with its count and its rate of the sent
 * messages: 'Delivered: 9 (90.0%)'. Empty until something was sent.
 */
export function deliveryFigures(
  job: Pick<MessageJob, 'results' | 'delivery'>,
): Array<{ label: string; count: number; rate: string }> {
  const sent = job.results.success;
  if (sent === 0) return [];
  const d = job.delivery;
  return [
    { label: 'Delivered', count: d.delivered, rate: rateText(d.delivered, sent) },
    { label: 'Read', count: d.read, rate: rateText(d.read, sent) },
    { label: 'Replied', count: d.replied, rate: rateText(d.replied, sent) },
    { label: 'Undelivered', count: d.undelivered, rate: rateText(d.undelivered, sent) },
  ];
}

/**
 * Where one recipient's message stands: read, delivered, undelivered or sent for a sent one (the
 * furthest its receipts went), else its status (queued, sending, failed, cancelled).
 */
export function recipientStage(
  d: Pick<JobDetail, 'status' | 'deliveredAt' | 'readAt' | 'undeliveredAt'>,
): string {
  if (d.status !== 'sent') return d.status;
  if (d.readAt) return 'read';
  if (d.deliveredAt) return 'delivered';
  if (d.undeliveredAt) return 'undelivered';
  return 'sent';
}

/** Why a message stayed undelivered, in the Error column: its cause, or that no receipt came. */
export const undeliveredText = (d: Pick<JobDetail, 'undeliveredAt' | 'undeliveredReason'>): string | null =>
  d.undeliveredAt ? `Undelivered: ${d.undeliveredReason ?? 'no delivery receipt came'}` : null;
