import { queryOptions, useQuery } from '@tanstack/react-query';
import type { GroupChatsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { groupKeys } from './keys.ts';

/** GET /api/groupChats/{sessionId}: the Group List page's richer shape. */
export const groupChatsQuery = (sessionId: string | null) =>
  queryOptions({
    queryKey: groupKeys.chats(sessionId),
    queryFn: () => apiFetch<GroupChatsResponse>(`/api/groupChats/${encodeURIComponent(sessionId!)}`),
    enabled: !!sessionId,
  });

export const useGroupChats = (sessionId: string | null) => useQuery(groupChatsQuery(sessionId));
