import { queryOptions, useQuery } from '@tanstack/react-query';
import type { WebhooksResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { webhookKeys, webhooksPath } from './keys.ts';

/** GET /api/webhooks: the signed-in user's webhooks (never their secrets). */
export const webhooksQuery = () =>
  queryOptions({
    queryKey: webhookKeys.all,
    queryFn: ({ signal }) => apiFetch<WebhooksResponse>(webhooksPath, { signal }),
  });
export const useWebhooks = () => useQuery(webhooksQuery());
