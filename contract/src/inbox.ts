import { z } from 'zod';
import { SendBody } from './messaging.ts';

/**
 * The Inbox: every one-to-one message people send to the user's accounts (linked phones and
 * Cloud numbers), one thread per person (people are matched by any of their addresses, as
 * `docs/people.md` describes), newest first, with what the user's accounts sent them.
 */

/** A thread's state: `open` until the user marks it done; a new message from the person reopens it. */
export const INBOX_STATES = ['open', 'done'] as const;
export const InboxState = z.enum(INBOX_STATES, { error: "state must be 'done' or 'open'" });
export type InboxState = z.infer<typeof InboxState>;

/** The list's `state` filter: `unread` is any thread with messages the user has not opened. */
export const InboxFilterState = z.enum(['unread', 'open', 'done'], {
  error: 'state must be one of unread, open, done',
});

/** `GET /api/inbox` query. `q` searches the person's name and any of their numbers. */
export const InboxQuery = z.object({
  /** An admin reads a managed user's inbox (read-only); others leave it out. */
  userId: z.string().max(100).optional(),
  sessionId: z.string().max(100).optional(),
  jobId: z.string().max(100).optional(),
  state: InboxFilterState.optional(),
  /** Threads whose last message is the person's (nobody answered yet). */
  needsReply: z.enum(['true', 'false']).optional(),
  /** Threads of people on the user's opt-out list. */
  optedOut: z.enum(['true', 'false']).optional(),
  q: z.string().max(200).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
export type InboxQuery = z.infer<typeof InboxQuery>;

export const InboxDirection = z.enum(['in', 'out']);
export type InboxDirection = z.infer<typeof InboxDirection>;

export const InboxThread = z.object({
  personId: z.string(),
  /** The person's name as the user's contacts or WhatsApp give it, else null. */
  name: z.string().nullable(),
  /** The person's number, else how their address is shown (a username, a hidden number). */
  phone: z.string(),
  lastMessage: z.object({
    text: z.string(),
    at: z.string(),
    direction: InboxDirection,
    /** As a message's `type` (text, image, poll_vote, …): what to show when `text` is ''. */
    type: z.string().optional(),
  }),
  /** Messages from the person the user has not opened. */
  unread: z.number().int(),
  state: InboxState,
  /** The account the person last wrote to (an answer goes through it). */
  sessionId: z.string(),
  /**
   * Cloud number: when the 24-hour customer service window closes (after that, templates only);
   * null for a linked phone (it may answer at any time) or when the window is closed.
   */
  windowClosesAt: z.string().nullable(),
  optedOut: z.boolean(),
});
export type InboxThread = z.infer<typeof InboxThread>;

export const InboxListResponse = z.object({
  success: z.literal(true),
  threads: z.array(InboxThread),
  nextCursor: z.string().nullable(),
});
export type InboxListResponse = z.infer<typeof InboxListResponse>;

/** A message of a thread, either way. */
export const InboxMessage = z.object({
  id: z.string(),
  direction: InboxDirection,
  sessionId: z.string(),
  at: z.string(),
  /** `text`, `image`, `video`, `audio`, `document`, `sticker`, `poll_vote`, `template`, … */
  type: z.string(),
  /** The text, a media caption, or the options a poll vote chose; '' when there is none. */
  text: z.string(),
  /** Media the person sent: fetched through `mediaUrl` (an authenticated GET). */
  media: z.object({ mime: z.string(), fileName: z.string().nullable(), url: z.string() }).nullable(),
  /** Out: the job that carried it, and its state; in: the job whose message this one answers. */
  jobId: z.string().nullable(),
  status: z.string().nullable(),
});
export type InboxMessage = z.infer<typeof InboxMessage>;

export const InboxThreadResponse = z.object({
  success: z.literal(true),
  thread: InboxThread,
  messages: z.array(InboxMessage),
});
export type InboxThreadResponse = z.infer<typeof InboxThreadResponse>;

/** `POST /api/inbox/:personId/reply`: `type` and `content` (and a file's fields) as in the send routes. */
export const InboxReplyBody = SendBody.pick({
  type: true,
  content: true,
  mime: true,
  data: true,
  fileName: true,
}).extend({ sessionId: z.string().min(1).max(100) });
export type InboxReplyBody = z.infer<typeof InboxReplyBody>;

export const InboxReplyResponse = z.object({
  success: z.literal(true),
  jobId: z.string(),
  creditsCharged: z.number().int().optional(),
});
export type InboxReplyResponse = z.infer<typeof InboxReplyResponse>;

/** `GET /api/inbox/:personId` query: an admin reads a managed user's thread (it stays unread for the user). */
export const InboxThreadQuery = z.object({ userId: z.string().max(100).optional() });

export const InboxStateBody = z.object({ state: InboxState });

export const INBOX_TEXTS = {
  windowClosed: 'The 24-hour window of this Cloud number has closed: answer with an approved template',
  optedOut: 'This person opted out: nothing can be sent to them',
  notFound: 'Conversation not found',
  readOnly: "A managed user's inbox is read-only",
  /** The person has no address this account can write to (a LID only, or a business-scoped id through a linked phone). */
  unreachable: 'This account cannot reach this person: answer from the account they wrote to',
  noMedia: 'Media not found',
  /** The provider could not fetch the file again (WhatsApp keeps files for a limited time). */
  mediaGone: 'This file is no longer available from WhatsApp',
} as const;

/** `POST /api/inbox/:personId/state` answer. */
export const InboxStateResponse = z.object({ success: z.literal(true), state: InboxState });

/** `GET /api/inbox/:personId/media/:messageId`. */
export const InboxMediaParams = z.object({ personId: z.string().max(100), messageId: z.string().max(40) });
export const InboxPersonParams = z.object({ personId: z.string().max(100) });

/** `GET /api/inbox/counts`: what the sidebar shows beside Inbox. */
export const InboxCountsResponse = z.object({
  success: z.literal(true),
  /** Threads with messages the user has not opened. */
  unreadThreads: z.number().int(),
});
export type InboxCountsResponse = z.infer<typeof InboxCountsResponse>;
