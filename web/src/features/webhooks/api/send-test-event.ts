import type { WebhookTestResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { webhookPath } from './keys.ts';

/** POST /api/webhooks/:id/test: one signed test call now; the answer says how it went. */
export const sendTestEvent = (id: string) =>
  apiFetch<WebhookTestResponse>(`${webhookPath(id)}/test`, { method: 'POST' });
export const useSendTestEvent = () => useApiMutation(sendTestEvent, []);
