import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AutoRepliesResponse, AutoReplyRule } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { sessionKeys } from './keys.ts';

const path = (sessionId: string) => `/api/session/${encodeURIComponent(sessionId)}/auto-replies`;
export const autoReplyKeys = {
  of: (sessionId: string) => [...sessionKeys.all, 'auto-replies', sessionId] as const,
};

/** GET /api/session/{sessionId}/auto-replies: the account's keyword rules. */
export const autoRepliesQuery = (sessionId: string) =>
  queryOptions({
    queryKey: autoReplyKeys.of(sessionId),
    queryFn: ({ signal }) => apiFetch<AutoRepliesResponse>(path(sessionId), { signal }),
  });
export const useAutoReplies = (sessionId: string) => useQuery(autoRepliesQuery(sessionId));

/** PUT /api/session/{sessionId}/auto-replies { rules }: replaces the account's rules. */
export const putAutoReplies = (v: { sessionId: string; rules: AutoReplyRule[] }) =>
  apiFetch<AutoRepliesResponse>(path(v.sessionId), { method: 'PUT', body: { rules: v.rules } });
export const usePutAutoReplies = (sessionId: string) =>
  useApiMutation(putAutoReplies, [autoReplyKeys.of(sessionId)]);
