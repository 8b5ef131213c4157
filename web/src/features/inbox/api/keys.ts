import type { InboxQuery } from '@wa/contract';

/** What the thread list asks the server for (GET /api/inbox without its cursor and limit). */
export type InboxFilter = Pick<InboxQuery, 'sessionId' | 'jobId' | 'state' | 'needsReply' | 'optedOut' | 'q'>;

/**
 * Query keys of the Inbox: the lists, the threads and the sidebar's count live under `all`, so an
 * answer or a change of state reads them all again. `userId`: an admin reading a managed user's
 * inbox (null: the user's own).
 */
export const inboxKeys = {
  all: ['inbox'] as const,
  list: (userId: string | null, filter: InboxFilter) => ['inbox', 'list', userId, filter] as const,
  thread: (userId: string | null, personId: string | null) => ['inbox', 'thread', userId, personId] as const,
  counts: ['inbox', 'counts'] as const,
};
