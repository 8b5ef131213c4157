import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { webhookKeys, webhookPath } from './keys.ts';

/** DELETE /api/webhooks/:id. */
export const deleteWebhook = (id: string) =>
  apiFetch<{ success: boolean; message: string }>(webhookPath(id), { method: 'DELETE' });
export const useDeleteWebhook = () => useApiMutation(deleteWebhook, [webhookKeys.all]);
