import type { CreateGroupBody, CreateGroupResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { groupKeys } from './keys.ts';

/**
 * POST /api/session/{sessionId}/groups: a new WhatsApp group made by the linked phone, with
 * its first members; the others come back to be sent the group's invite link.
 */
export const createGroup = (accountId: string, body: CreateGroupBody) =>
  apiFetch<CreateGroupResponse>(`/api/session/${encodeURIComponent(accountId)}/groups`, {
    method: 'POST',
    body,
  });

export const useCreateGroup = (accountId: string | null) =>
  useApiMutation(
    (body: CreateGroupBody) => createGroup(accountId!, body),
    [groupKeys.list(accountId), groupKeys.chats(accountId)],
  );
