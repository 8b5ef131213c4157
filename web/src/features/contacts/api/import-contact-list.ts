import type { ImportContactsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { contactListKeys, optOutKeys } from './keys.ts';

/**
 * POST /api/contact-lists/import (multipart: file, name, optional phoneColumn, and the consent
 * the user confirmed with its purpose).
 */
export const importContactList = (v: {
  file: File;
  name: string;
  phoneColumn?: string;
  consentPurpose?: string;
}) => {
  const form = new FormData();
  // The name first: the server then streams the file instead of holding it in memory.
  form.append('name', v.name);
  if (v.phoneColumn !== undefined) form.append('phoneColumn', v.phoneColumn);
  if (v.consentPurpose !== undefined) {
    form.append('consentConfirmed', 'true');
    form.append('consentPurpose', v.consentPurpose);
  }
  form.append('file', v.file, v.file.name);
  return apiFetch<ImportContactsResponse>('/api/contact-lists/import', { method: 'POST', body: form });
};
export const useImportContactList = () =>
  useApiMutation(importContactList, [contactListKeys.all, optOutKeys.all]);
