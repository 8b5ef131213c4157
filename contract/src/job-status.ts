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
