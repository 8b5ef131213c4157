import { queryOptions, useQuery } from '@tanstack/react-query';
import type { WebhookAttemptsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { webhookKeys, webhookPath } from './keys.ts';

/** GET /api/webhooks/:id/attempts: the last 50 calls, newest first. */
export const attemptsQuery = (id: string) =>
  queryOptions({
    queryKey: webhookKeys.attempts(id),
    queryFn: ({ signal }) => apiFetch<WebhookAttemptsResponse>(`${webhookPath(id)}/attempts`, { signal }),
    refetchInterval: 10_000,
  });
export const useAttempts = (id: string) => useQuery(attemptsQuery(id));
