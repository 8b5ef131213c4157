import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ContactListsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { contactListKeys } from './keys.ts';

export { contactListKeys };

/** GET /api/contact-lists: the Contacts page's lists and the bulk page's 'Contact lists' picker. */
export const contactListsQuery = () =>
  queryOptions({
    queryKey: contactListKeys.list,
    queryFn: ({ signal }) => apiFetch<ContactListsResponse>('/api/contact-lists', { signal }),
  });

export const useContactLists = () => useQuery(contactListsQuery());
