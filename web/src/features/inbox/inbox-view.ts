import { type Account, type InboxThread, phoneOrNull } from '@wa/contract';
import { formatDateTime } from '../../lib/format.ts';
import type { InboxFilter } from './api/keys.ts';

/**
 * Where the Inbox keeps what it shows: the filters and the open thread (`person`). The page keeps
 * them in its address (back and forward work, Job Details links to a job's replies); the admin's
 * read-only view in its own state.
 */
export type InboxParams = {
  value: URLSearchParams;
  /** Sets (a value) or removes (null) parameters; `replace`: no new history entry. */
  set: (changes: Record<string, string | null>, replace: boolean) => void;
  /** Every filter removed. */
  clear: () => void;
};

/** The list's filters as the page's address holds them (`#/inbox?jobId=…&state=unread`). */
export const FILTER_PARAMS = ['sessionId', 'jobId', 'state', 'needsReply', 'optedOut', 'q'] as const;

/** The filter of the address's parameters; anything the server would refuse is left out. */
export function filterOf(params: URLSearchParams): InboxFilter {
  const filter: InboxFilter = {};
  const state = params.get('state');
  if (state === 'unread' || state === 'open' || state === 'done') filter.state = state;
  for (const key of ['needsReply', 'optedOut'] as const) if (params.get(key) === 'true') filter[key] = 'true';
  for (const key of ['sessionId', 'jobId', 'q'] as const) {
    const value = params.get(key)?.trim();
    if (value) filter[key] = value;
  }
  return filter;
}

/** The 'Show' choices of the list: every thread, or by state. */
export const SHOW_OPTIONS = [
  { value: 'all', label: 'All' },
  { value: 'unread', label: 'Unread' },
  { value: 'open', label: 'Open' },
  { value: 'done', label: 'Done' },
] as const;

/** The text when no thread matches the filter. */
export function emptyInboxText(filter: InboxFilter): string {
  if (filter.q) return `No conversations match '${filter.q}'.`;
  if (Object.keys(filter).length > 0) return 'No conversations match these filters.';
  return 'No messages yet. When people write to your accounts, their conversations appear here.';
}

/** An account as the pickers name it, 'name (number)'; one the user no longer has, by its number. */
export function accountName(accountId: string, accounts: readonly Account[], cc: string): string {
  const s = accounts.find((x) => x.sessionId === accountId);
  const number = s ? (phoneOrNull(s.phoneNumber, cc) ?? s.phoneNumber) : accountId.split('_')[0]!;
  return s ? `${s.sessionName} (${number})` : number;
}

/** What a message without text is, in words: '(photo)', '(document)'. */
export function kindText(type: string | undefined): string {
  const words: Record<string, string> = { image: 'photo', poll_vote: 'poll vote' };
  return `(${type ? (words[type] ?? type) : 'media'})`;
}

/** The last message as the list shows it: the user's own begins 'You: ', a poll vote 'Voted: '. */
export function lastMessageText(thread: Pick<InboxThread, 'lastMessage'>): string {
  const m = thread.lastMessage;
  const text = !m.text ? kindText(m.type) : m.type === 'poll_vote' ? `Voted: ${m.text}` : m.text;
  return m.direction === 'out' ? `You: ${text}` : text;
}

/**
 * Whether the thread's account may answer in free form now: an account without a service window
 * (a linked phone) always; one with it (a Cloud number) only through the account the person wrote
 * to and until its 24-hour window closes.
 */
export function freeFormOpen(
  thread: Pick<InboxThread, 'sessionId' | 'windowClosesAt'>,
  accountId: string,
  hasWindow: boolean,
  now: number = Date.now(),
): boolean {
  if (!hasWindow) return true;
  if (accountId !== thread.sessionId || !thread.windowClosesAt) return false;
  return Date.parse(thread.windowClosesAt) > now;
}

/** A Cloud thread's window, in words: when it closes, or that it has. */
export function windowText(thread: Pick<InboxThread, 'windowClosesAt'>, now: number = Date.now()): string {
  return thread.windowClosesAt && Date.parse(thread.windowClosesAt) > now
    ? `Window closes ${formatDateTime(thread.windowClosesAt)}`
    : 'Window closed';
}

/** The person as the list names them: their name, else their number. */
export const personName = (thread: Pick<InboxThread, 'name' | 'phone'>): string =>
  thread.name || thread.phone;
