import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { contactListKeys, listPath } from './keys.ts';

/** DELETE /api/contact-lists/:id. */
export const deleteContactList = (id: string) =>
  apiFetch<{ success: boolean; message: string }>(listPath(id), { method: 'DELETE' });
export const useDeleteContactList = () => useApiMutation(deleteContactList, [contactListKeys.all]);
