import { queryOptions, useQueries } from '@tanstack/react-query';
import type { ContactsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { contactListKeys } from '../../contacts/api/keys.ts';

/** How many contacts of each chosen list the send page shows (the counts cover them all). */
export const LIST_RECIPIENTS_SHOWN = 100;

/** GET /api/contact-lists/{id}/contacts: the first contacts of a list, opted-out ones marked. */
export const listRecipientsQuery = (id: string) =>
  queryOptions({
    queryKey: contactListKeys.recipients(id),
    queryFn: ({ signal }) =>
      apiFetch<ContactsResponse>(
        `/api/contact-lists/${encodeURIComponent(id)}/contacts?limit=${LIST_RECIPIENTS_SHOWN}`,
        { signal },
      ),
  });

/** The first contacts of each list, in the lists' order. */
export function useListRecipients(ids: readonly string[]) {
  return useQueries({
    queries: ids.map((id) => listRecipientsQuery(id)),
    combine: (results) => ({
      contacts: results.flatMap((r, i) => (r.data?.contacts ?? []).map((c) => ({ ...c, listId: ids[i]! }))),
      loading: results.some((r) => r.isLoading),
    }),
  });
}
