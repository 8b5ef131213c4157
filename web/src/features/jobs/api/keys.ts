import type { JobsQuery } from '@wa/contract';

/** What a list asks the server for: the tab's status, the search and the date range (ISO instants). */
export type JobsListFilter = { status?: JobsQuery['status']; q?: string; from?: string; to?: string };

/**
 * Query keys of the message-jobs area: every list, page, detail and retry count lives under
 * `all`, so a send, retry, delete, pause or refresh reads them all again.
 */
export const messageJobKeys = {
  all: ['messageJobs'] as const,
  list: (userId: string | null, filter: JobsListFilter) => ['messageJobs', 'list', userId, filter] as const,
  /** The MIS Report's first page alone (its 15 s poll) and the poll of its older running pages. */
  listHead: (userId: string | null, filter: JobsListFilter) =>
    ['messageJobs', 'list', userId, filter, 'head'] as const,
  listOlderRunning: (userId: string | null, filter: JobsListFilter) =>
    ['messageJobs', 'list', userId, filter, 'older-running'] as const,
  details: (jobId: string | null, part: 'recipients' | 'media') =>
    ['messageJobs', 'details', jobId, part] as const,
  retryable: (userId: string | null, jobIds: readonly string[]) =>
    ['messageJobs', 'retryable', userId, jobIds.join(',')] as const,
};
