import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  CreateWebhookBody,
  CreateWebhookResponse,
  WebhookAttemptsResponse,
  WebhooksResponse,
} from '@wa/contract';
import { apiFetch } from '../../lib/api.ts';
import { useApiMutation } from '../../lib/mutation.ts';

const base = '/api/webhooks';
const path = (id: string) => `${base}/${encodeURIComponent(id)}`;

export const webhookKeys = {
  all: ['webhooks'] as const,
  attempts: (id: string) => ['webhooks', id, 'attempts'] as const,
};

/** GET /api/webhooks: the signed-in user's webhooks (never their secrets). */
export const webhooksQuery = () =>
  queryOptions({
    queryKey: webhookKeys.all,
    queryFn: ({ signal }) => apiFetch<WebhooksResponse>(base, { signal }),
  });
export const useWebhooks = () => useQuery(webhooksQuery());

/** GET /api/webhooks/:id/attempts: the last 50 calls, newest first. */
export const attemptsQuery = (id: string) =>
  queryOptions({
    queryKey: webhookKeys.attempts(id),
    queryFn: ({ signal }) => apiFetch<WebhookAttemptsResponse>(`${path(id)}/attempts`, { signal }),
    refetchInterval: 10_000,
  });
export const useAttempts = (id: string) => useQuery(attemptsQuery(id));

/** POST /api/webhooks: the answer holds the signing secret, the only time it is shown. */
export const createWebhook = (body: CreateWebhookBody) =>
  apiFetch<CreateWebhookResponse>(base, { method: 'POST', body });
export const useCreateWebhook = () => useApiMutation(createWebhook, [webhookKeys.all]);

/** DELETE /api/webhooks/:id. */
export const deleteWebhook = (id: string) =>
  apiFetch<{ success: boolean; message: string }>(path(id), { method: 'DELETE' });
export const useDeleteWebhook = () => useApiMutation(deleteWebhook, [webhookKeys.all]);
