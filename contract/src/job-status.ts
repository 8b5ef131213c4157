import type { JobStatus } from './jobs.ts';

/**
 * The job statuses by what a person may do with the job, one list each for the server (the
 * actions, the list's filters, the engine's SQL) and the web app (its buttons and polls).
 */

/** A job that runs, waits to run, or waits for its time: it may be paused, and it still has recipients to send. */
export const PAUSABLE_JOB_STATUSES = [
  'pending',
  'processing',
  'scheduled',
] as const satisfies readonly JobStatus[];
/** The list's 'active' filter and the report's "still moving": running or paused, not scheduled. */
export const ACTIVE_JOB_STATUSES = [
  'pending',
  'processing',
  'paused',
] as const satisfies readonly JobStatus[];
/** A job that has ended: every recipient sent, failed or cancelled. */
export const FINISHED_JOB_STATUSES = ['completed', 'failed'] as const satisfies readonly JobStatus[];

const has = (list: readonly JobStatus[]) => (status: JobStatus) => list.includes(status);

export const isPausable: (status: JobStatus) => boolean = has(PAUSABLE_JOB_STATUSES);
export const isActive: (status: JobStatus) => boolean = has(ACTIVE_JOB_STATUSES);
export const isFinished: (status: JobStatus) => boolean = has(FINISHED_JOB_STATUSES);
/** Only a paused job can be resumed. */
export const isResumable = (status: JobStatus): boolean => status === 'paused';

/** A list as SQL literals, `'pending', 'processing', 'scheduled'`, for `status IN (…)` in the server's SQL. */
export const sqlStatusList = (list: readonly JobStatus[]): string => list.map((s) => `'${s}'`).join(', ');

/** What a job's status is called on every screen, in the CSV and in print: the API's status, told apart where it hides something. */
export type JobWordKind = JobStatus | 'waiting' | 'partly';

export type JobWord = {
  kind: JobWordKind;
  /** The word (shown in capitals by the web app's CSS; as it is in the CSV). */
  label: string;
  /** A line under the word: '8 of 9 sent', or why and until when the job waits; null when none. */
  detail: string | null;
};

type WordOf = {
  status: JobStatus;
  statusReason: string | null;
  results: { success: number; failed: number };
  progress: { completed: number; total: number };
};

const count = new Intl.NumberFormat('en-IN');

/**
 * The one word for a job (docs/decisions.md, Job status): a failed job that sent some messages
 * is 'Partly sent' (the API's status stays `failed`, and the Failed tab lists it); a running job
 * held by the account's policy is 'waiting', with its reason.
 */
export function jobWord(job: WordOf): JobWord {
  if (job.status === 'failed' && job.results.success > 0)
    return {
      kind: 'partly',
      label: 'Partly sent',
      detail: `${count.format(job.results.success)} of ${count.format(job.progress.total)} sent`,
    };
  if ((job.status === 'processing' || job.status === 'pending') && job.statusReason?.startsWith('Waiting'))
    return { kind: 'waiting', label: 'waiting', detail: job.statusReason };
  return { kind: job.status, label: job.status, detail: job.statusReason ?? null };
}

/**
 * The Progress figures of a job, the same in Message Jobs and the send page's panel: of a job
 * under way, the recipients done (sent, failed or cancelled); of a job that ended, the messages
 * sent, so that a job with failures never reads '8 / 8 (100%)' beside '7 of 8 sent'.
 */
export function jobProgress(job: Pick<WordOf, 'status' | 'results' | 'progress'>): {
  done: number;
  total: number;
  percent: number;
} {
  const total = job.progress.total;
  const done = isFinished(job.status) ? job.results.success : job.progress.completed;
  return { done, total, percent: total > 0 ? Math.round((done * 100) / total) : 0 };
}
