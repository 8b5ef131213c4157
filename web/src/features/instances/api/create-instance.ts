import type { CreateInstanceBody } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { sessionKeys } from './keys.ts';

/** POST /api/create-instance → the new session's id. */
export const createInstance = (body: CreateInstanceBody) =>
  apiFetch<{ success: true; message: string; sessionId: string }>('/api/create-instance', {
    method: 'POST',
    body,
  });
export const useCreateInstance = () => useApiMutation(createInstance, [sessionKeys.all]);
