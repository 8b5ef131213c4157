import { z } from 'zod';

/** Largest media file the product accepts (DECISIONS.md). */
export const MAX_MEDIA_BYTES = 16 * 1024 * 1024;

/** The spec's send types; 'text' is accepted as another name for 'string'. */
export const SendType = z.enum(['string', 'text', 'media', 'poll']);
export type SendType = z.infer<typeof SendType>;

export const PollContent = z.object({
  pollName: z.string(),
  pollOptions: z.array(z.string()),
  options: z.object({ allowMultipleAnswers: z.boolean() }).optional(),
});
export type PollContent = z.infer<typeof PollContent>;

/**
 * The send payload of spec section 3. It is parsed loosely here (types only) so that the
 * server can give the spec's validation messages in the spec's order.
 */
export const SendBody = z.object({
  chatIds: z.array(z.string().max(200)).max(200_000).nullish(),
  type: SendType.nullish(),
  /** Text, caption, or the poll (an object, or its JSON text). */
  content: z.union([z.string().max(65_536), PollContent]).nullish(),
  mime: z.string().max(200).nullish(),
  /** The file body in base64 (a `data:` URL is accepted too). */
  data: z.string().nullish(),
  /** Beyond the spec: the file name, shown for documents. */
  fileName: z.string().max(255).nullish(),
  /** An ISO timestamp, only when scheduled. */
  scheduleTime: z.string().max(100).nullish(),
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
});
export type SendResponse = z.infer<typeof SendResponse>;

export const JobStatus = z.enum(['pending', 'processing', 'scheduled', 'completed', 'failed']);
export type JobStatus = z.infer<typeof JobStatus>;

export const MessageType = z.enum(['text', 'media', 'poll']);
export type MessageType = z.infer<typeof MessageType>;

export const RecipientStatus = z.enum(['queued', 'sending', 'sent', 'failed', 'cancelled']);
export type RecipientStatus = z.infer<typeof RecipientStatus>;

export const MessageJob = z.object({
  id: z.string(),
  sessionId: z.string(),
  audience: z.enum(['groups', 'individuals']),
  messageType: MessageType,
  isScheduled: z.boolean(),
  scheduledTime: z.string().nullable(),
  status: JobStatus,
  progress: z.object({ completed: z.number().int(), total: z.number().int(), percentComplete: z.number() }),
  /** `delivered` and `read` count recipients with a delivery or read receipt (beyond the spec's two). */
  results: z.object({
    success: z.number().int(),
    failed: z.number().int(),
    delivered: z.number().int(),
    read: z.number().int(),
  }),
  createdAt: z.string(),
  elapsedTimeMs: z.number().int(),
  /** Text, caption, or for polls the JSON text of `{ pollName, pollOptions, options: { allowMultipleAnswers } }`. */
  messageContent: z.string(),
  mediaMime: z.string().nullable(),
  fileName: z.string().nullable(),
});
export type MessageJob = z.infer<typeof MessageJob>;

export const JobsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
  status: z.enum(['all', 'active', 'pending', 'processing', 'scheduled', 'completed', 'failed']).optional(),
  /** Search: a job id's beginning, or words of its message (any case). */
  q: z.string().max(200).optional(),
  /** The `nextCursor` of the previous page (keyset paging; `offset` is then ignored). */
  cursor: z.string().max(200).optional(),
});
export type JobsQuery = z.infer<typeof JobsQuery>;

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
});
export type JobDetail = z.infer<typeof JobDetail>;

export const JobWithDetails = MessageJob.extend({
  /** Base64 of the file for media jobs (null otherwise, or when `media=0`). */
  mediaData: z.string().nullable(),
  details: z.array(JobDetail),
  /** How many recipients the job has in all (`details` may be a page of them). */
  detailsTotal: z.number().int(),
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
