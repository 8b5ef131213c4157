import type { InboxReplyBody, InboxReplyResponse } from '@wa/contract';
import { apiFetch, newIdempotencyKey } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';
import { messageJobKeys } from '../../jobs/api/keys.ts';
import { inboxKeys } from './keys.ts';

/** POST /api/inbox/{personId}/reply: an answer, sent as a job of one (charged as a send). */
export const replyToThread = (personId: string, body: InboxReplyBody) =>
  apiFetch<InboxReplyResponse>(`/api/inbox/${encodeURIComponent(personId)}/reply`, {
    method: 'POST',
    body,
    headers: { 'idempotency-key': newIdempotencyKey() },
  });

export const useReplyToThread = () =>
  useApiMutation(
    (v: { personId: string; body: InboxReplyBody }) => replyToThread(v.personId, v.body),
    [inboxKeys.all, userDetailsKeys.all, messageJobKeys.all],
  );
