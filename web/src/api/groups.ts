import { queryOptions, useQuery } from '@tanstack/react-query';
import type { GroupChatsResponse, GroupsListResponse } from '@wa/contract';
import { apiFetch } from '../lib/api.ts';

/** GET /api/groupsList/{sessionId}: the compose page's and dashboard's group list. */
export const groupsListQuery = (sessionId: string | null) =>
  queryOptions({
    queryKey: ['groupsList', sessionId],
    queryFn: () => apiFetch<GroupsListResponse>(`/api/groupsList/${encodeURIComponent(sessionId!)}`),
    enabled: !!sessionId,
  });

export const useGroupsList = (sessionId: string | null) => useQuery(groupsListQuery(sessionId));

/** GET /api/groupChats/{sessionId}: the Group List page's richer shape. */
export const groupChatsQuery = (sessionId: string | null) =>
  queryOptions({
    queryKey: ['groupChats', sessionId],
    queryFn: () => apiFetch<GroupChatsResponse>(`/api/groupChats/${encodeURIComponent(sessionId!)}`),
    enabled: !!sessionId,
  });

export const useGroupChats = (sessionId: string | null) => useQuery(groupChatsQuery(sessionId));
