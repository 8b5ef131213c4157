import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ContactsResponse, ImportContactsResponse, OptOutsResponse } from '@wa/contract';
import { contactListKeys } from '../../api/contact-lists.ts';
import { apiDownload, apiFetch } from '../../lib/api.ts';
import { useApiMutation } from '../../lib/mutation.ts';

const listPath = (id: string) => `/api/contact-lists/${encodeURIComponent(id)}`;

export const optOutKeys = { all: ['optOuts'] as const };

/** Contacts shown per page of a list. */
export const CONTACTS_PAGE_SIZE = 50;

/** GET /api/contact-lists/:id/contacts: one page of a list, optionally searched (number or name). */
export const contactsQuery = (id: string, offset: number, search: string) =>
  queryOptions({
    queryKey: contactListKeys.contacts(id, offset, search),
    queryFn: ({ signal }) => {
      const q = new URLSearchParams({ limit: String(CONTACTS_PAGE_SIZE), offset: String(offset) });
      if (search) q.set('search', search);
      return apiFetch<ContactsResponse>(`${listPath(id)}/contacts?${q}`, { signal });
    },
    placeholderData: keepPreviousData,
  });
export const useContacts = (id: string, offset: number, search: string) =>
  useQuery(contactsQuery(id, offset, search));

/** POST /api/contact-lists/import (multipart: file, name, optional phoneColumn). */
export const importContactList = (v: { file: File; name: string; phoneColumn?: string }) => {
  const form = new FormData();
  // The name first: the server then streams the file instead of holding it in memory.
  form.append('name', v.name);
  if (v.phoneColumn !== undefined) form.append('phoneColumn', v.phoneColumn);
  form.append('file', v.file, v.file.name);
  return apiFetch<ImportContactsResponse>('/api/contact-lists/import', { method: 'POST', body: form });
};
export const useImportContactList = () =>
  useApiMutation(importContactList, [contactListKeys.all, optOutKeys.all]);

/** DELETE /api/contact-lists/:id. */
export const deleteContactList = (id: string) =>
  apiFetch<{ success: boolean; message: string }>(listPath(id), { method: 'DELETE' });
export const useDeleteContactList = () => useApiMutation(deleteContactList, [contactListKeys.all]);

/** GET /api/contact-lists/:id/export.csv, saved as '{list name}.csv'. */
export const exportContactList = (id: string, name: string) =>
  apiDownload(`${listPath(id)}/export.csv`, `${name.replace(/[\\/:*?"<>|]+/g, '_') || 'contacts'}.csv`);
export const useExportContactList = () =>
  useApiMutation((v: { id: string; name: string }) => exportContactList(v.id, v.name), []);

/** GET /api/opt-outs: the numbers the user no longer messages, newest first. */
export const optOutsQuery = () =>
  queryOptions({
    queryKey: optOutKeys.all,
    queryFn: ({ signal }) => apiFetch<OptOutsResponse>('/api/opt-outs', { signal }),
  });
export const useOptOuts = () => useQuery(optOutsQuery());

/** POST /api/opt-outs { phoneNumbers }: lists count their opted-out contacts again. */
export const addOptOuts = (phoneNumbers: string[]) =>
  apiFetch<{ success: boolean; message: string }>('/api/opt-outs', { body: { phoneNumbers } });
export const useAddOptOuts = () => useApiMutation(addOptOuts, [optOutKeys.all, contactListKeys.all]);

/** DELETE /api/opt-outs/:phoneNumber. */
export const removeOptOut = (phoneNumber: string) =>
  apiFetch<{ success: boolean; message: string }>(`/api/opt-outs/${encodeURIComponent(phoneNumber)}`, {
    method: 'DELETE',
  });
export const useRemoveOptOut = () => useApiMutation(removeOptOut, [optOutKeys.all, contactListKeys.all]);
