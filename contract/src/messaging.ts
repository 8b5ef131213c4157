import { z } from 'zod';
import { TemplateContent } from './cloud.ts';
import { recipientList, textList } from './text-list.ts';

/** Largest media file the product accepts (docs/decisions.md, Media), and the text that refuses a larger one. */
export const MAX_MEDIA_BYTES = 16 * 1024 * 1024;
/** The most recipients one send request may name. */
export const MAX_SEND_RECIPIENTS = 200_000;
export const FILE_TOO_LARGE = 'File is too large (max 16 MB)';

/**
 * Media normalisation (docs/decisions.md, Media), the label the web shows and
 * `mediaMime` reports: images are jpeg unless png or gif, videos mp4, audio mp3 (`audio/mpeg`),
 * anything else a generic binary type. What is sent is decided from the bytes (server).
 */
export function normaliseMime(mime: string | null | undefined): string {
  const m = (mime ?? '').trim().toLowerCase().split(';')[0] ?? '';
  if (m.startsWith('image/')) return m === 'image/png' || m === 'image/gif' ? m : 'image/jpeg';
  if (m.startsWith('video/')) return 'video/mp4';
  if (m.startsWith('audio/')) return 'audio/mpeg';
  return 'application/octet-stream';
}

/** The send validation texts of the specification (and 'File is too large'), for the page and the server. */
/** Why a send's `sessionIds` is refused (400). */
export const SPREAD_TEXTS = {
  groups:
    'A group send goes from the account that is in the group: sessionIds is only for sends to phone numbers',
  repeat: 'A repeating send goes from one account: leave sessionIds out',
  notYours: (accountId: string) => `Not one of your accounts: ${accountId}`,
  coldNeedsBothKinds:
    'coldToCloud needs a linked phone and a Cloud API account among the accounts: add them with sessionIds',
} as const;

export const SEND_TEXTS = {
  noRecipients: 'Please select at least one group',
  noText: 'Please enter a message',
  noFile: 'Please select a file to send',
  noPollQuestion: 'Please enter a poll question',
  fewPollOptions: 'Please add at least two poll options',
  noScheduleTime: 'Please select a schedule time',
  badScheduleTime: 'Please select a valid future date and time',
  fileTooLarge: FILE_TOO_LARGE,
} as const;

/** Poll limits of docs/decisions.md (Polls): WhatsApp accepts at most 12 options. */
export const POLL_LIMITS = { maxOptions: 12, questionLength: 255, optionLength: 100 } as const;
export const POLL_TEXTS = {
  tooManyOptions: `A poll can have at most ${POLL_LIMITS.maxOptions} options`,
  duplicateOptions: 'Poll options must be different',
  questionTooLong: 'Poll question is too long',
  optionTooLong: 'Poll option is too long',
} as const;

/**
 * What is wrong with a poll beyond the spec's two checks (a question, two options), or null.
 * `options` are the filled ones, trimmed; duplicates are compared in any case.
 */
export function pollLimitProblem(question: string, options: readonly string[]): string | null {
  if (options.length > POLL_LIMITS.maxOptions) return POLL_TEXTS.tooManyOptions;
  if (new Set(options.map((o) => o.trim().toLowerCase())).size !== options.length) {
    return POLL_TEXTS.duplicateOptions;
  }
  if (question.trim().length > POLL_LIMITS.questionLength) return POLL_TEXTS.questionTooLong;
  if (options.some((o) => o.trim().length > POLL_LIMITS.optionLength)) return POLL_TEXTS.optionTooLong;
  return null;
}

/** The spec's send types; 'text' is accepted as another name for 'string'. */
/** 'template': an approved template of a Cloud API account. */
export const SendType = z.enum(['string', 'text', 'media', 'poll', 'template']);
export type SendType = z.infer<typeof SendType>;

export const PollContent = z.object({
  pollName: z.string(),
  pollOptions: z.array(z.string()),
  options: z.object({ allowMultipleAnswers: z.boolean() }).optional(),
});
export type PollContent = z.infer<typeof PollContent>;

/** How often a repeating send comes back. */
export const REPEAT_EVERY = ['day', 'week', 'month'] as const;
export type RepeatEvery = (typeof REPEAT_EVERY)[number];

export const REPEAT_TEXTS = {
  needsSchedule: 'A repeating message needs a schedule time',
  badUntil: 'repeat.until must be a date and time after scheduleTime',
  seriesCancelled: 'Series cancelled',
  notSeries: 'This job does not repeat',
} as const;

/** 'Repeats weekly until 30/11/2026, 10:00:00 am' (the date as the caller formats it). */
export function repeatText(every: RepeatEvery, until: string | null): string {
  const adverb = every === 'day' ? 'daily' : every === 'week' ? 'weekly' : 'monthly';
  return until ? `Repeats ${adverb} until ${until}` : `Repeats ${adverb}`;
}

/**
 * The send payload of the specification (docs/decisions.md, Kept to the letter). It is parsed loosely here (types only) so that the
 * server can give the spec's validation messages in the spec's order.
 */
export const SendBody = z.object({
  chatIds: textList(MAX_SEND_RECIPIENTS, 200).nullish(),
  type: SendType.nullish(),
  /** Text, caption, the poll (an object, or its JSON text), or a Cloud API template `{ name, language, parameters }`. */
  content: z.union([z.string().max(65_536), PollContent, TemplateContent]).nullish(),
  mime: z.string().max(200).nullish(),
  /** The file body in base64 (a `data:` URL is accepted too). */
  data: z.string().nullish(),
  /** Beyond the spec: the file name, shown for documents. */
  fileName: z.string().max(255).nullish(),
  /** An ISO timestamp, only when scheduled. */
  scheduleTime: z.string().max(100).nullish(),
  /**
   * With `scheduleTime`: the send repeats every day, week or month from that time (same UTC
   * clock), until `until` (an ISO timestamp; none: until the series is cancelled). Each
   * occurrence is its own job, reserved when it starts.
   */
  repeat: z
    .object({
      every: z.enum(REPEAT_EVERY, { error: "repeat.every must be 'day', 'week' or 'month'" }),
      until: z.string().max(100).nullish(),
    })
    .nullish(),
  /**
   * Sends to phone numbers only: more of the user's own accounts that share the job (the path's
   * account is the first). The recipients are split between them in proportion to what each
   * may still send today; an account down for FAILOVER_AFTER_MS hands its waiting recipients
   * to the others. A group send goes from the account in the group (400 otherwise).
   */
  sessionIds: z.array(z.string().max(100)).max(10).nullish(),
  /**
   * With `sessionIds` mixing linked phones and Cloud API accounts: each number a linked
   * phone of the job has messaged before goes through that phone, every other ('cold') number
   * through the Cloud API account(s), instead of the split by allowance.
   */
  coldToCloud: z.boolean().optional(),
  /** Individuals only: contact lists whose numbers (with their fields) receive the message too. */
  contactListIds: z.array(z.string().max(100)).max(100).nullish(),
  /** Individuals only: numbers with their own fields for `{{field}}` (a CSV with headers). */
  recipients: recipientList(MAX_SEND_RECIPIENTS).nullish(),
});
export type SendBody = z.infer<typeof SendBody>;

/** Optional `Idempotency-Key` of both send routes: a repeat within 24 hours answers the first job. */
export const SendHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Any 1-255 visible ASCII characters; the same key and body within 24 h answer the first job'),
});

export const SendResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  totalChats: z.number().int(),
  jobId: z.string(),
  /**
   * Credits reserved for the job: each recipient at the price of the kind of account that sends it
   * (an admin's price per kind; 1 each by default). A repeating send reserves each
   * occurrence when it starts: 0 here.
   */
  creditsCharged: z.number().int().optional(),
  /** A job over linked phones and Cloud API accounts: how many recipients go through each kind. */
  split: z.object({ viaPhones: z.number().int(), viaCloud: z.number().int() }).optional(),
  /** Numbers left out because they opted out: not charged (docs/decisions.md, Opt-outs). */
  skipped: z
    .object({
      optedOut: z.array(z.string()),
      /** Left out for want of consent ('Send one-to-one only to contacts with consent'). */
      noConsent: z.array(z.string()).optional(),
      /** Business-scoped user ids left out because no account of the send can write to them (a linked phone). */
      needsCloudNumber: z.array(z.string()).optional(),
    })
    .optional(),
});
export type SendResponse = z.infer<typeof SendResponse>;
