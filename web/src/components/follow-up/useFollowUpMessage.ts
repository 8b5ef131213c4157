import type { FollowUpBody } from '@wa/contract';
import { useCallback, useReducer, useState } from 'react';
import {
  buildSendBody,
  type ComposeAction,
  composeReducer,
  emptyCompose,
  type FieldProblem,
  fieldOfProblem,
  type MessageKind,
  mediaOf,
  validateSend,
} from '../../features/compose/compose-form.ts';

/** The message of a follow-up as its body carries it (`type`, `content`, and a file's `mime`, `data`, `fileName`). */
export type FollowUpMessage = Pick<FollowUpBody, 'type' | 'content' | 'mime' | 'data' | 'fileName'>;

/**
 * A follow-up's own message, written in Bulk Messaging's compose area (text, a file with a
 * caption, or a poll), checked as a send checks it; a problem is shown beside its control.
 */
export function useFollowUpMessage() {
  const [state, dispatch] = useReducer(composeReducer, undefined, () => emptyCompose('text'));
  const [error, setError] = useState<FieldProblem | null>(null);
  const edit = useCallback((action: ComposeAction) => {
    dispatch(action);
    setError(null);
  }, []);

  /** True when the message may be sent; else its problem shows beside its control. */
  const check = (): boolean => {
    // The recipients are the segment's: only the message is checked here.
    const problem = validateSend(state, 1);
    if (problem) setError({ field: fieldOfProblem(problem) ?? 'text', text: problem });
    return problem === null;
  };

  /** The body's message, the file read now. */
  const message = async (): Promise<FollowUpMessage> => {
    const { chatIds: _, ...rest } = buildSendBody(state, [], 'individuals', await mediaOf(state));
    return rest as FollowUpMessage;
  };

  return {
    state,
    check,
    message,
    /** What ComposeArea takes. */
    area: {
      state,
      dispatch: edit,
      onKindChange: (kind: MessageKind) => edit({ type: 'kind', kind }),
      onFileError: (text: string) => setError({ field: 'file', text }),
      error,
    },
  };
}
