import type { GroupMembersListBody, GroupMembersListResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { contactListKeys } from './keys.ts';

/** POST /api/contact-lists/from-group: a group's members as a new contact list (the Group List's detail panel). */
export const saveGroupMembers = (body: GroupMembersListBody) =>
  apiFetch<GroupMembersListResponse>('/api/contact-lists/from-group', { body });
export const useSaveGroupMembers = () => useApiMutation(saveGroupMembers, [contactListKeys.all]);
