import {
  normaliseMime,
  POLL_LIMITS,
  POLL_TEXTS,
  pollLimitProblem,
  SEND_TEXTS,
  type SendBody,
} from '@wa/contract';
import { readFileBase64 } from '../../lib/file-body.ts';

/** The three tabs of the compose area; the send type value for text is 'string'. */
export type MessageKind = 'text' | 'media' | 'poll';

export type ComposeState = {
  kind: MessageKind;
  text: string;
  file: File | null;
  caption: string;
  pollQuestion: string;
  /** Starts with two empty options; at most 12 (docs/decisions.md, Polls). */
  pollOptions: string[];
  allowMultipleAnswers: boolean;
};

export const MIN_POLL_OPTIONS = 2;

export const emptyCompose = (kind: MessageKind = 'text'): ComposeState => ({
  kind,
  text: '',
  file: null,
  caption: '',
  pollQuestion: '',
  pollOptions: ['', ''],
  allowMultipleAnswers: false,
});

export type ComposeAction =
  /** Changing type clears the text, file, poll entries. */
  | { type: 'kind'; kind: MessageKind }
  | { type: 'text'; value: string }
  | { type: 'file'; file: File | null }
  | { type: 'caption'; value: string }
  | { type: 'pollQuestion'; value: string }
  | { type: 'pollOption'; index: number; value: string }
  | { type: 'addPollOption' }
  | { type: 'removePollOption'; index: number }
  | { type: 'allowMultipleAnswers'; value: boolean }
  | { type: 'reset' }
  /** A saved draft, as it was. */
  | { type: 'restore'; state: ComposeState };

export function composeReducer(state: ComposeState, action: ComposeAction): ComposeState {
  switch (action.type) {
    case 'kind':
      return action.kind === state.kind ? state : emptyCompose(action.kind);
    case 'text':
      return { ...state, text: action.value };
    case 'file':
      return { ...state, file: action.file };
    case 'caption':
      return { ...state, caption: action.value };
    case 'pollQuestion':
      return { ...state, pollQuestion: action.value };
    case 'pollOption':
      return {
        ...state,
        pollOptions: state.pollOptions.map((o, i) => (i === action.index ? action.value : o)),
      };
    case 'addPollOption':
      // WhatsApp takes at most 12 options (docs/decisions.md, Polls): the button is disabled there too.
      if (state.pollOptions.length >= POLL_LIMITS.maxOptions) return state;
      return { ...state, pollOptions: [...state.pollOptions, ''] };
    case 'removePollOption':
      // An option can be removed only while more than two remain.
      if (state.pollOptions.length <= MIN_POLL_OPTIONS) return state;
      return { ...state, pollOptions: state.pollOptions.filter((_, i) => i !== action.index) };
    case 'allowMultipleAnswers':
      return { ...state, allowMultipleAnswers: action.value };
    case 'reset':
      return emptyCompose(state.kind);
    case 'restore':
      return action.state;
  }
}

/** Nothing typed, attached or filled in. */
export const isEmptyCompose = (s: ComposeState): boolean =>
  !s.text.trim() &&
  !s.file &&
  !s.caption.trim() &&
  !s.pollQuestion.trim() &&
  s.pollOptions.every((o) => !o.trim());

const filledOptions = (options: string[]) => options.map((o) => o.trim()).filter((o) => o.length > 0);

/**
 * Checks 1–4 of the specification (recipients, then the content of the chosen type), then the poll
 * limits of docs/decisions.md (Polls); null when all pass.
 */
export function validateSend(state: ComposeState, selectedCount: number): string | null {
  if (selectedCount < 1) return SEND_TEXTS.noRecipients;
  if (state.kind === 'text' && !state.text.trim()) return SEND_TEXTS.noText;
  if (state.kind === 'media' && !state.file) return SEND_TEXTS.noFile;
  if (state.kind === 'poll') {
    if (!state.pollQuestion.trim()) return SEND_TEXTS.noPollQuestion;
    const options = filledOptions(state.pollOptions);
    if (options.length < MIN_POLL_OPTIONS) return SEND_TEXTS.fewPollOptions;
    return pollLimitProblem(state.pollQuestion, options);
  }
  return null;
}

/** A control of the compose area that a problem can be shown beside. */
export type ComposeField = 'text' | 'file' | 'pollQuestion' | 'pollOptions';

/** A problem shown beside its control (not in a banner off screen). */
export type FieldProblem = { field: ComposeField; text: string };

const PROBLEM_FIELD: Record<string, ComposeField> = {
  [SEND_TEXTS.noText]: 'text',
  [SEND_TEXTS.noFile]: 'file',
  [SEND_TEXTS.fileTooLarge]: 'file',
  [SEND_TEXTS.noPollQuestion]: 'pollQuestion',
  [POLL_TEXTS.questionTooLong]: 'pollQuestion',
  [SEND_TEXTS.fewPollOptions]: 'pollOptions',
  [POLL_TEXTS.tooManyOptions]: 'pollOptions',
  [POLL_TEXTS.duplicateOptions]: 'pollOptions',
  [POLL_TEXTS.optionTooLong]: 'pollOptions',
};

/** The control a validation problem concerns; null for one about the recipients. */
export const fieldOfProblem = (problem: string): ComposeField | null => PROBLEM_FIELD[problem] ?? null;

/** Check 5: a `datetime-local` value that is set and strictly later than now. */
export function validateScheduleTime(value: string, now = new Date()): string | null {
  if (!value.trim()) return SEND_TEXTS.noScheduleTime;
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || at.getTime() <= now.getTime()) return SEND_TEXTS.badScheduleTime;
  return null;
}

/** Where the message goes: groups (/compose) or phone numbers (/bulkmessage). */
export type Audience = 'groups' | 'individuals';

export type MediaPayload = { mime: string; data: string; fileName: string };

/** The attached file of a Media Message as the payload carries it (null for the other tabs). */
export async function mediaOf(state: ComposeState): Promise<MediaPayload | null> {
  if (state.kind !== 'media' || !state.file) return null;
  return {
    mime: normaliseMime(state.file.type),
    data: await readFileBase64(state.file),
    fileName: state.file.name,
  };
}

/**
 * The send payload of the specification (docs/decisions.md, Kept to the letter). For individuals only a poll sets a type (the server
 * infers media from `data`); blank poll options are dropped.
 */
export function buildSendBody(
  state: ComposeState,
  chatIds: string[],
  audience: Audience,
  media: MediaPayload | null,
  scheduleTime?: string,
): SendBody {
  const body: SendBody = { chatIds };
  const typed = (t: 'string' | 'media' | 'poll') => {
    if (audience === 'groups' || t === 'poll') body.type = t;
  };
  if (state.kind === 'text') {
    typed('string');
    body.content = state.text;
  } else if (state.kind === 'media') {
    typed('media');
    body.content = state.caption;
    if (media) {
      body.mime = media.mime;
      body.data = media.data;
      body.fileName = media.fileName;
    }
  } else {
    typed('poll');
    body.content = {
      pollName: state.pollQuestion.trim(),
      pollOptions: filledOptions(state.pollOptions),
      options: { allowMultipleAnswers: state.allowMultipleAnswers },
    };
  }
  if (scheduleTime) body.scheduleTime = scheduleTime;
  return body;
}

export const TYPE_LABEL: Record<MessageKind, string> = {
  text: 'Text Message',
  media: 'Media Message',
  poll: 'Poll',
};

/** The first 50 characters, with an ellipsis when longer (schedule summary). */
export function truncate(text: string, max = 50): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** What the schedule summary quotes: the message, or caption, or poll question. */
export function summaryText(state: ComposeState): string {
  const source =
    state.kind === 'text' ? state.text : state.kind === 'media' ? state.caption : state.pollQuestion;
  return truncate(source);
}
