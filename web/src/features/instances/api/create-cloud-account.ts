import type { CreateCloudAccountBody } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { accountKeys } from './keys.ts';

/** POST /api/cloud-instances: connects a WhatsApp Cloud API number (checked against Meta first). */
export const createCloudAccount = (body: CreateCloudAccountBody) =>
  apiFetch<{ success: true; sessionId: string }>('/api/cloud-instances', { method: 'POST', body });

/** The new account appears in the accounts list. */
export const useCreateCloudAccount = () => useApiMutation(createCloudAccount, [accountKeys.all]);
