import { queryOptions, useQuery } from '@tanstack/react-query';
import type { GroupChatsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { groupKeys } from './keys.ts';

/** GET /api/groupChats/{sessionId}: the Group List page's richer shape. */
export const groupChatsQuery = (accountId: string | null) =>
  queryOptions({
    queryKey: groupKeys.chats(accountId),
    queryFn: () => apiFetch<GroupChatsResponse>(`/api/groupChats/${encodeURIComponent(accountId!)}`),
    enabled: !!accountId,
  });

export const useGroupChats = (accountId: string | null) => useQuery(groupChatsQuery(accountId));
