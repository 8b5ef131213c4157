import { useQuery } from '@tanstack/react-query';
import type { InboxThreadResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { INBOX_REFRESH_MS } from './get-inbox.ts';
import { inboxKeys } from './keys.ts';

/**
 * GET /api/inbox/{personId}: the thread and its messages both ways. Opening it marks the person's
 * messages read (not when an admin reads a managed user's: `userId`).
 */
export const useInboxThread = (userId: string | null, personId: string | null) =>
  useQuery({
    queryKey: inboxKeys.thread(userId, personId),
    queryFn: ({ signal }) =>
      apiFetch<InboxThreadResponse>(
        `/api/inbox/${encodeURIComponent(personId!)}${userId ? `?userId=${encodeURIComponent(userId)}` : ''}`,
        { signal },
      ),
    enabled: !!personId,
    refetchInterval: INBOX_REFRESH_MS,
  });
