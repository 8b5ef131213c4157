import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ContactsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { contactListKeys, listPath } from './keys.ts';

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
