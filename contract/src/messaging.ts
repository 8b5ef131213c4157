import { z } from 'zod';
import { TemplateContent } from './cloud.ts';
import { DateParam } from './common.ts';
import { StatusStyle } from './status.ts';

/** Largest media file the product accepts (DECISIONS.md), and the text that refuses a larger one. */
export const MAX_MEDIA_BYTES = 16 * 1024 * 1024;
export const FILE_TOO_LARGE = 'File is too large (max 16 MB)';

/**
 * Media normalisation of spec section 5 and DECISIONS.md, the label the web shows and
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

/** The send validation texts of spec section 5 (and 'File is too large'), for the page and the server. */
/** Why a send's `sessionIds` is refused (400). */
export const SPREAD_TEXTS = {
  groups:
    'A group send goes from the account that is in the group: sessionIds is only for sends to phone numbers',
  repeat: 'A repeating send goes from one account: leave sessionIds out',
  notYours: (sessionId: string) => `Not one of your accounts: ${sessionId}`,
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

/** Poll limits of DECISIONS.md (Polls): WhatsApp accepts at most 12 options. */
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
/** 'template': an approved template of a Cloud API account (issue 30). */
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
 * The send payload of spec section 3. It is parsed loosely here (types only) so that the
 * server can give the spec's validation messages in the spec's order.
 */
export const SendBody = z.object({
  chatIds: z.array(z.string().max(200)).max(200_000).nullish(),
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
   * session is the first). The recipients are split between them in proportion to what each
   * may still send today; an account down for FAILOVER_AFTER_MS hands its waiting recipients
   * to the others. A group send goes from the account in the group (400 otherwise).
   */
  sessionIds: z.array(z.string().max(100)).max(10).nullish(),
  /**
   * With `sessionIds` mixing linked phones and Cloud API accounts (issue 30): each number a linked
   * phone of the job has messaged before goes through that phone, every other ('cold') number
   * through the Cloud API account(s), instead of the split by allowance.
   */
  coldToCloud: z.boolean().optional(),
  /** Individuals only: contact lists whose numbers (with their fields) receive the message too. */
  contactListIds: z.array(z.string().max(100)).max(100).nullish(),
  /** Individuals only: numbers with their own fields for `{{field}}` (a CSV with headers). */
  recipients: z
    .array(
      z.object({
        chatId: z.string().max(200),
        fields: z.record(z.string().max(100), z.string().max(1000)).optional(),
      }),
    )
    .max(200_000)
    .nullish(),
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
   * (an admin's price per kind, issue 30; 1 each by default). A repeating send reserves each
   * occurrence when it starts: 0 here.
   */
  creditsCharged: z.number().int().optional(),
  /** A job over linked phones and Cloud API accounts: how many recipients go through each kind (issue 30). */
  split: z.object({ viaPhones: z.number().int(), viaCloud: z.number().int() }).optional(),
  /** Numbers left out because they opted out: not charged (DECISIONS.md, Opt-outs). */
  skipped: z
    .object({
      optedOut: z.array(z.string()),
      /** Left out for want of consent ('Send one-to-one only to contacts with consent', issue 31). */
      noConsent: z.array(z.string()).optional(),
    })
    .optional(),
});
export type SendResponse = z.infer<typeof SendResponse>;

/** The spec's five, and `paused` (by its owner, or by itself after too many failures). */
export const JobStatus = z.enum(['pending', 'processing', 'scheduled', 'paused', 'completed', 'failed']);
export type JobStatus = z.infer<typeof JobStatus>;

export const MessageType = z.enum(['text', 'media', 'poll', 'template', 'status']);
export type MessageType = z.infer<typeof MessageType>;

export const RecipientStatus = z.enum(['queued', 'sending', 'sent', 'failed', 'cancelled']);
export type RecipientStatus = z.infer<typeof RecipientStatus>;

export const JobDelivery = z.object({
  delivered: z.number().int(),
  read: z.number().int(),
  replied: z.number().int(),
  undelivered: z.number().int(),
});
export type JobDelivery = z.infer<typeof JobDelivery>;

export const MessageJob = z.object({
  id: z.string(),
  sessionId: z.string(),
  /** Beyond the spec: every account sharing the job (`sessionId` first), when it is spread over several. */
  sessionIds: z.array(z.string()).optional(),
  audience: z.enum(['groups', 'individuals']),
  messageType: MessageType,
  isScheduled: z.boolean(),
  scheduledTime: z.string().nullable(),
  status: JobStatus,
  /**
   * Why the job is paused or waiting, in words: 'Paused: 12 of the last 20 messages failed',
   * 'Waiting: daily limit reached, resumes at 00:00'; null when neither.
   */
  statusReason: z.string().nullable(),
  progress: z.object({ completed: z.number().int(), total: z.number().int(), percentComplete: z.number() }),
  /** `delivered` and `read` count recipients with a delivery or read receipt (beyond the spec's two). */
  results: z.object({
    success: z.number().int(),
    failed: z.number().int(),
    delivered: z.number().int(),
    read: z.number().int(),
  }),
  /**
   * Beyond the spec (issue 26): what became of the sent messages. `delivered` and `read` as in
   * `results`; `replied`: recipients who wrote back within 7 days of their send; `undelivered`:
   * sent, with no delivery receipt within UNDELIVERED_AFTER_MS (a later receipt moves it to delivered).
   */
  delivery: JobDelivery,
  createdAt: z.string(),
  elapsedTimeMs: z.number().int(),
  /** Text, caption, or for polls the JSON text of `{ pollName, pollOptions, options: { allowMultipleAnswers } }`. */
  messageContent: z.string(),
  mediaMime: z.string().nullable(),
  fileName: z.string().nullable(),
  /** A text status's background colour and font (issue 31); absent for other jobs. */
  statusStyle: StatusStyle.nullish(),
  /**
   * The series this job is an occurrence of (beyond the spec): how often, until when, and
   * whether more occurrences will come (`active`); absent or null for a one-off job.
   */
  repeat: z
    .object({
      seriesId: z.string(),
      every: z.enum(REPEAT_EVERY),
      until: z.string().nullable(),
      active: z.boolean(),
    })
    .nullish(),
  /** Cloud API template jobs (issue 30): the template's category as Meta names it (marketing, utility, authentication). */
  templateCategory: z.string().optional(),
  /** Cloud API template jobs: Meta's charge for the messages delivered so far, in ten-thousandths of a rupee. */
  costUnits: z.number().int().nullable().optional(),
});
export type MessageJob = z.infer<typeof MessageJob>;

export const JobsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  from: DateParam.optional(),
  to: DateParam.optional(),
  /** `active` covers pending, processing and paused. */
  status: z
    .enum(['all', 'active', 'pending', 'processing', 'scheduled', 'paused', 'completed', 'failed'])
    .optional(),
  /** Search: a job id's beginning, or words of its message (any case). */
  q: z.string().max(200).optional(),
  /** The `nextCursor` of the previous page (keyset paging; `offset` is then ignored). */
  cursor: z.string().max(200).optional(),
});
export type JobsQuery = z.infer<typeof JobsQuery>;

/** `GET /api/message-jobs/:userId/export.csv`: the report's range and search, and the zone its dates are written in. */
export const ReportExportQuery = z.object({
  from: DateParam.optional(),
  to: DateParam.optional(),
  q: z.string().max(200).optional(),
  /** An IANA time zone for Created Date (the browser's); default Asia/Kolkata. */
  tz: z.string().max(64).optional(),
});
export type ReportExportQuery = z.infer<typeof ReportExportQuery>;

/** Totals of the user's jobs in the date range and search, whatever the status filter (the tabs' counts). */
export const JobsSummary = z.object({
  jobs: z.number().int(),
  byStatus: z.object({
    pending: z.number().int(),
    scheduled: z.number().int(),
    processing: z.number().int(),
    paused: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
  }),
  recipients: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
});
export type JobsSummary = z.infer<typeof JobsSummary>;

export const JobsResponse = z.object({
  success: z.literal(true),
  jobs: z.array(MessageJob),
  message: z.string(),
  /** Jobs matching the whole query (status included). */
  total: z.number().int(),
  summary: JobsSummary,
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type JobsResponse = z.infer<typeof JobsResponse>;

export const JobDetail = z.object({
  chatName: z.string().nullable(),
  chatId: z.string(),
  status: RecipientStatus,
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  readAt: z.string().nullable(),
  error: z.string().nullable(),
  /**
   * The chat the message went to when WhatsApp answered another JID for the number (Brazil's
   * 9th digit, Mexico's 52 1, Argentina's 54 9); null when it went to `chatId`.
   */
  sentTo: z.string().nullable(),
  /** Beyond the spec: what this recipient was sent, only when the job's text is personalised. */
  content: z.string().optional(),
  /** Beyond the spec: the account that sends (or sent) this message (always given by the server). */
  sessionId: z.string().optional(),
  /** Cloud API recipients: Meta's `pricing.category` once a status carried it (issue 30). */
  pricingCategory: z.string().nullable().optional(),
  /** Cloud API recipients: Meta's charge for it once delivered, in ten-thousandths of a rupee. */
  costUnits: z.number().int().nullable().optional(),
  /** Beyond the spec (issue 26): the contact's first reply within 7 days of the send, and its text. */
  repliedAt: z.string().nullable().optional(),
  replyText: z.string().nullable().optional(),
  /** Beyond the spec: when the message was declared undelivered (no delivery receipt in time), and why where known. */
  undeliveredAt: z.string().nullable().optional(),
  undeliveredReason: z.string().nullable().optional(),
});
export type JobDetail = z.infer<typeof JobDetail>;

export const JobWithDetails = MessageJob.extend({
  /** Base64 of the file for media jobs (null otherwise, or when `media=0`). */
  mediaData: z.string().nullable(),
  details: z.array(JobDetail),
  /** How many recipients the job has in all (`details` may be a page of them). */
  detailsTotal: z.number().int(),
  /** Cloud API jobs: what Meta charges for the delivered messages, in ten-thousandths of a rupee (issue 30). */
  costUnits: z.number().int().nullable().optional(),
});
export type JobWithDetails = z.infer<typeof JobWithDetails>;

export const JobDetailsResponse = z.object({
  success: z.literal(true),
  job: JobWithDetails,
  message: z.string(),
});
export type JobDetailsResponse = z.infer<typeof JobDetailsResponse>;

/**
 * The details list can be long (one row per recipient): it is paged, and the send page's 2-second
 * poll can skip it (`detailsLimit=0`) and the media (`media=0`).
 */
export const JobDetailsQuery = z.object({
  detailsLimit: z.coerce.number().int().min(0).max(200_000).optional(),
  detailsOffset: z.coerce.number().int().min(0).optional(),
  media: z.enum(['0', '1']).optional(),
});
export type JobDetailsQuery = z.infer<typeof JobDetailsQuery>;

export const JobIdParams = z.object({ jobId: z.string().min(1).max(100) });
export const UserIdPathParams = z.object({ userId: z.string().min(1).max(100) });

/** Retries on `sessionId` when given (one of the user's sessions), else on the job's own session. */
export const RetryBody = z.object({ sessionId: z.string().max(100).optional() });

export const RetryResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  /** How many failed recipients were queued again (and charged). */
  retried: z.number().int(),
  /** The credits reserved for them: at the price of the retrying account's kind (issue 30). */
  creditsCharged: z.number().int().optional(),
});
export type RetryResponse = z.infer<typeof RetryResponse>;

export const DashboardQuery = z.object({ sessionId: z.string().min(1).max(100).optional() });
export type DashboardQuery = z.infer<typeof DashboardQuery>;

/**
 * `totalMembers` counts the participants of the cached groups of the chosen session (the
 * user's first session when none is given); the message figures cover all the user's jobs.
 */
export const DashboardResponse = z.object({
  success: z.literal(true),
  totalMembers: z.number().int(),
  messagesSent: z.number().int(),
  delivered: z.number().int(),
  /** Delivered ÷ sent, in percent (0 when nothing was sent). */
  deliveryRate: z.number(),
  /** The session the group figures are for (null when the user has none). */
  sessionId: z.string().nullable(),
  totalGroups: z.number().int(),
  recentJobs: z.array(MessageJob),
});
export type DashboardResponse = z.infer<typeof DashboardResponse>;
