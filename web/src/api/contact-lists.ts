import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  ContactListsResponse,
  ContactsResponse,
  GroupMembersListBody,
  GroupMembersListResponse,
} from '@wa/contract';
import { apiFetch } from '../lib/api.ts';
import { useApiMutation } from '../lib/mutation.ts';

/** Every query about contact lists sits under `all`: invalidating it refreshes lists and contacts. */
export const contactListKeys = {
  all: ['contactLists'] as const,
  list: ['contactLists', 'list'] as const,
  contacts: (id: string, offset: number, search: string) =>
    ['contactLists', id, 'contacts', offset, search] as const,
};

/** GET /api/contact-lists: the Contacts page's lists and the bulk page's 'Contact lists' picker. */
export const contactListsQuery = () =>
  queryOptions({
    queryKey: contactListKeys.list,
    queryFn: ({ signal }) => apiFetch<ContactListsResponse>('/api/contact-lists', { signal }),
  });

export const useContactLists = () => useQuery(contactListsQuery());

/** GET /api/contact-lists/:id/contacts?limit=3: the first contacts of a list, for the bulk page's preview. */
export const contactsSampleQuery = (id: string | null) =>
  queryOptions({
    queryKey: [...contactListKeys.all, id, 'sample'] as const,
    queryFn: ({ signal }) =>
      apiFetch<ContactsResponse>(`/api/contact-lists/${encodeURIComponent(id!)}/contacts?limit=3`, {
        signal,
      }),
    enabled: !!id,
  });

export const useContactsSample = (id: string | null) => useQuery(contactsSampleQuery(id));

/** POST /api/contact-lists/from-group: a group's members as a new contact list (the Group List's detail panel). */
export const saveGroupMembers = (body: GroupMembersListBody) =>
  apiFetch<GroupMembersListResponse>('/api/contact-lists/from-group', { body });
export const useSaveGroupMembers = () => useApiMutation(saveGroupMembers, [contactListKeys.all]);
