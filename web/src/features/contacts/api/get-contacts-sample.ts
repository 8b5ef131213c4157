import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ContactsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { contactListKeys, listPath } from './keys.ts';

/** GET /api/contact-lists/:id/contacts?limit=3: the first contacts of a list, for the bulk page's preview. */
export const contactsSampleQuery = (id: string | null) =>
  queryOptions({
    queryKey: contactListKeys.sample(id),
    queryFn: ({ signal }) => apiFetch<ContactsResponse>(`${listPath(id!)}/contacts?limit=3`, { signal }),
    enabled: !!id,
  });

export const useContactsSample = (id: string | null) => useQuery(contactsSampleQuery(id));
