import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AutoRepliesResponse, AutoReplyRule } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { accountKeys } from './keys.ts';

const path = (accountId: string) => `/api/session/${encodeURIComponent(accountId)}/auto-replies`;
export const autoReplyKeys = {
  of: (accountId: string) => [...accountKeys.all, 'auto-replies', accountId] as const,
};

/** GET /api/session/{sessionId}/auto-replies: the account's keyword rules. */
export const autoRepliesQuery = (accountId: string) =>
  queryOptions({
    queryKey: autoReplyKeys.of(accountId),
    queryFn: ({ signal }) => apiFetch<AutoRepliesResponse>(path(accountId), { signal }),
  });
export const useAutoReplies = (accountId: string) => useQuery(autoRepliesQuery(accountId));

/** PUT /api/session/{sessionId}/auto-replies { rules }: replaces the account's rules. */
export const putAutoReplies = (v: { accountId: string; rules: AutoReplyRule[] }) =>
  apiFetch<AutoRepliesResponse>(path(v.accountId), { method: 'PUT', body: { rules: v.rules } });
export const usePutAutoReplies = (accountId: string) =>
  useApiMutation(putAutoReplies, [autoReplyKeys.of(accountId)]);
