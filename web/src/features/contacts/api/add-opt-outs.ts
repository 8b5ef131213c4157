import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { contactListKeys, optOutKeys } from './keys.ts';

/** POST /api/opt-outs { phoneNumbers }: lists count their opted-out contacts again. */
export const addOptOuts = (phoneNumbers: string[]) =>
  apiFetch<{ success: boolean; message: string }>('/api/opt-outs', { body: { phoneNumbers } });
export const useAddOptOuts = () => useApiMutation(addOptOuts, [optOutKeys.all, contactListKeys.all]);
