import type { MessageJob } from '@wa/contract';
import { formatNumber } from './format.ts';

/** What a job's badge says: the API's status, told apart where it hides something. */
export type JobBadgeKind = MessageJob['status'] | 'waiting' | 'partly';

export type JobBadgeView = {
  kind: JobBadgeKind;
  /** The badge's words (shown in capitals by CSS). */
  label: string;
  /** A line under the badge: '8 of 9 sent', or why and until when the job waits; null when none. */
  detail: string | null;
};

type Job = Pick<MessageJob, 'status' | 'statusReason' | 'results' | 'progress'>;

/**
 * A failed job that sent some messages is 'Partly sent' (the API's status stays `failed`, and the
 * Failed tab lists it); a running job held by the account's policy is 'waiting', with its reason.
 */
export function jobBadge(job: Job): JobBadgeView {
  if (job.status === 'failed' && job.results.success > 0)
    return {
      kind: 'partly',
      label: 'Partly sent',
      detail: `${formatNumber(job.results.success)} of ${formatNumber(job.progress.total)} sent`,
    };
  if ((job.status === 'processing' || job.status === 'pending') && job.statusReason?.startsWith('Waiting'))
    return { kind: 'waiting', label: 'waiting', detail: job.statusReason };
  return { kind: job.status, label: job.status, detail: job.statusReason ?? null };
}
