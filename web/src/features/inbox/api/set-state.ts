import type { InboxState } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { inboxKeys } from './keys.ts';

/** POST /api/inbox/{personId}/state: Mark done, or Reopen. */
export const setThreadState = (personId: string, state: InboxState) =>
  apiFetch<{ success: true }>(`/api/inbox/${encodeURIComponent(personId)}/state`, {
    method: 'POST',
    body: { state },
  });

export const useSetThreadState = () =>
  useApiMutation(
    (v: { personId: string; state: InboxState }) => setThreadState(v.personId, v.state),
    [inboxKeys.all],
  );
