import { z } from 'zod';
import { DateParam } from './common.ts';
import { REPEAT_EVERY } from './messaging.ts';
import { StatusStyle } from './status.ts';

/** Jobs as the API shows them: their statuses, lists, details, reports, retries and the dashboard. */

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
   * Beyond the spec: what became of the sent messages. `delivered` and `read` as in
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
  /** A text status's background colour and font; absent for other jobs. */
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
  /** Cloud API template jobs: the template's category as Meta names it (marketing, utility, authentication). */
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
  /** Cloud API recipients: Meta's `pricing.category` once a status carried it. */
  pricingCategory: z.string().nullable().optional(),
  /** Cloud API recipients: Meta's charge for it once delivered, in ten-thousandths of a rupee. */
  costUnits: z.number().int().nullable().optional(),
  /** Beyond the spec: the contact's first reply within 7 days of the send, and its text. */
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
  /** Cloud API jobs: what Meta charges for the delivered messages, in ten-thousandths of a rupee. */
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

/**
 * Retries on `sessionId` when given (one of the user's accounts), else on the job's own account.
 * Recipients whose delivery is unknown (isDeliveryUnknownError: the send timed out or was
 * interrupted, so WhatsApp may have the message) are retried only with `includeDeliveryUnknown`:
 * the user accepts that a second copy may arrive.
 */
export const RetryBody = z.object({
  sessionId: z.string().max(100).optional(),
  includeDeliveryUnknown: z
    .boolean()
    .optional()
    .describe(
      'Also retry failures whose delivery is unknown (timed out, interrupted): a copy may arrive twice',
    ),
});

export const RetryResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  /** How many failed recipients were queued again (and charged). */
  retried: z.number().int(),
  /** The credits reserved for them: at the price of the retrying account's kind. */
  creditsCharged: z.number().int().optional(),
});
export type RetryResponse = z.infer<typeof RetryResponse>;

export const DashboardQuery = z.object({ sessionId: z.string().min(1).max(100).optional() });
export type DashboardQuery = z.infer<typeof DashboardQuery>;

/**
 * `totalMembers` counts the participants of the cached groups of the chosen account (the
 * user's first account when none is given); the message figures cover all the user's jobs.
 */
export const DashboardResponse = z.object({
  success: z.literal(true),
  totalMembers: z.number().int(),
  messagesSent: z.number().int(),
  delivered: z.number().int(),
  /** Delivered ÷ sent, in percent (0 when nothing was sent). */
  deliveryRate: z.number(),
  /** The account the group figures are for (null when the user has none). */
  sessionId: z.string().nullable(),
  totalGroups: z.number().int(),
  recentJobs: z.array(MessageJob),
});
export type DashboardResponse = z.infer<typeof DashboardResponse>;
