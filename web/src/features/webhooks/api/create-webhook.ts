import type { CreateWebhookBody, CreateWebhookResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { webhookKeys, webhooksPath } from './keys.ts';

/** POST /api/webhooks: the answer holds the signing secret, the only time it is shown. */
export const createWebhook = (body: CreateWebhookBody) =>
  apiFetch<CreateWebhookResponse>(webhooksPath, { method: 'POST', body });
export const useCreateWebhook = () => useApiMutation(createWebhook, [webhookKeys.all]);
