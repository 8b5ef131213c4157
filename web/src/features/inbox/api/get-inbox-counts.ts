import { useQuery } from '@tanstack/react-query';
import type { InboxCountsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { INBOX_REFRESH_MS } from './get-inbox.ts';
import { inboxKeys } from './keys.ts';

/** GET /api/inbox/counts: the threads with unread messages, beside Inbox in the sidebar. */
export const useInboxCounts = (enabled: boolean) =>
  useQuery({
    queryKey: inboxKeys.counts,
    queryFn: ({ signal }) => apiFetch<InboxCountsResponse>('/api/inbox/counts', { signal }),
    enabled,
    refetchInterval: INBOX_REFRESH_MS,
  });
