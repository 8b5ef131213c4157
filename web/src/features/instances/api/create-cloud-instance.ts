import type { CreateCloudInstanceBody } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { sessionKeys } from './keys.ts';

/** POST /api/cloud-instances: connects a WhatsApp Cloud API number (checked against Meta first). */
export const createCloudInstance = (body: CreateCloudInstanceBody) =>
  apiFetch<{ success: true; sessionId: string }>('/api/cloud-instances', { method: 'POST', body });

/** The new account appears in the sessions list. */
export const useCreateCloudInstance = () => useApiMutation(createCloudInstance, [sessionKeys.all]);
