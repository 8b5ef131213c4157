import type { CreateGroupBody, CreateGroupResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { groupKeys } from './keys.ts';

/**
 * POST /api/session/{sessionId}/groups: a new WhatsApp group made by the linked phone, with
 * its first members; the others come back to be sent the group's invite link.
 */
export const createGroup = (sessionId: string, body: CreateGroupBody) =>
  apiFetch<CreateGroupResponse>(`/api/session/${encodeURIComponent(sessionId)}/groups`, {
    method: 'POST',
    body,
  });

export const useCreateGroup = (sessionId: string | null) =>
  useApiMutation(
    (body: CreateGroupBody) => createGroup(sessionId!, body),
    [groupKeys.list(sessionId), groupKeys.chats(sessionId)],
  );
