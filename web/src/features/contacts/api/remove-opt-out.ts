import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { contactListKeys, optOutKeys } from './keys.ts';

/** DELETE /api/opt-outs/:phoneNumber. */
export const removeOptOut = (phoneNumber: string) =>
  apiFetch<{ success: boolean; message: string }>(`/api/opt-outs/${encodeURIComponent(phoneNumber)}`, {
    method: 'DELETE',
  });
export const useRemoveOptOut = () => useApiMutation(removeOptOut, [optOutKeys.all, contactListKeys.all]);
