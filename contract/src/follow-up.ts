import { z } from 'zod';
import { SendBody } from './messaging.ts';

/**
 * Follow-ups from a job's outcomes: a segment of a one-to-one job's recipients, by what became of
 * their message, receives a new job of its own.
 *
 * - `not_delivered`: sent, no delivery receipt (yet, or ever: undelivered);
 * - `delivered_not_read`: delivered, not read, no reply;
 * - `read_not_replied`: read, no reply;
 * - `replied`: wrote back after the send;
 * - `failed_retryable`: failed with a failure a retry may fix (as Retry Failed counts them);
 * - `not_replied`: every sent recipient without a reply (the first three together): the
 *   "follow up after N days to those who have not replied" of the send pages.
 */
export const FOLLOW_UP_SEGMENTS = [
  'not_delivered',
  'delivered_not_read',
  'read_not_replied',
  'replied',
  'failed_retryable',
  'not_replied',
] as const;
export const FollowUpSegment = z.enum(FOLLOW_UP_SEGMENTS, {
  error: `segment must be one of ${FOLLOW_UP_SEGMENTS.join(', ')}`,
});
export type FollowUpSegment = z.infer<typeof FollowUpSegment>;

/** What the web shows for each segment. */
export const FOLLOW_UP_SEGMENT_LABELS: Record<FollowUpSegment, string> = {
  not_delivered: 'Not delivered',
  delivered_not_read: 'Delivered, not read',
  read_not_replied: 'Read, no reply',
  replied: 'Replied',
  failed_retryable: 'Failed (retryable)',
  not_replied: 'Not replied',
};

export const FOLLOW_UP_TEXTS = {
  groupJob: 'A group job has no one-to-one segments to follow up',
  statusJob: 'A Status post has no one-to-one segments to follow up',
  emptySegment: 'No recipient of this job is in that segment',
  pastSchedule: 'The follow-up time must be in the future',
  listName: 'Enter a name for the contact list',
  beforeJob: 'The follow-up time must be after the job is sent',
  bothTimes: 'Give either scheduleTime or afterDays, not both',
  notFound: 'Follow-up not found',
  cancelled: 'Follow-up cancelled',
  /** Why a follow-up cannot be cancelled any more. */
  notWaiting: {
    due: 'This follow-up is being sent now: it can no longer be cancelled',
    created: 'This follow-up has been sent already: it can no longer be cancelled',
    failed: 'This follow-up has failed: there is nothing to cancel',
    cancelled: 'This follow-up is already cancelled',
  },
} as const;

/** What becomes of a scheduled follow-up: it waits, then is made a job, fails, or is cancelled first. */
export const FOLLOW_UP_STATES = ['waiting', 'created', 'failed', 'cancelled'] as const;
export type FollowUpState = (typeof FOLLOW_UP_STATES)[number];

/** `GET /api/message-jobs/:jobId/segments`. */
export const SegmentsResponse = z.object({
  success: z.literal(true),
  segments: z.record(FollowUpSegment, z.number().int()),
  /** Follow-ups of this job that wait for their time (a scheduled follow-up is made into a job then). */
  scheduled: z.array(
    z.object({
      id: z.string(),
      segment: FollowUpSegment,
      dueAt: z.string(),
      state: z.enum(FOLLOW_UP_STATES),
      jobId: z.string().nullable(),
      error: z.string().nullable(),
    }),
  ),
});
export type SegmentsResponse = z.infer<typeof SegmentsResponse>;

/**
 * `POST /api/message-jobs/:jobId/follow-up`: `type` and `content` (with `mime`, `data`,
 * `fileName` for a file) as in the send routes. With `scheduleTime` the segment is taken as it
 * stands at that time: who replied or opted out meanwhile is not in it. `afterDays` schedules it
 * that many days after the job is sent: after its scheduled time for a job that waits for it,
 * else after now.
 */
export const FollowUpBody = SendBody.pick({
  type: true,
  content: true,
  mime: true,
  data: true,
  fileName: true,
  scheduleTime: true,
}).extend({
  segment: FollowUpSegment,
  sessionId: z.string().min(1).max(100),
  afterDays: z.number().int().min(1).max(90).nullish(),
});
export type FollowUpBody = z.infer<typeof FollowUpBody>;

export const FollowUpResponse = z.object({
  success: z.literal(true),
  /** The new job; for a scheduled follow-up, the id it will have when its time comes. */
  jobId: z.string(),
  /** Recipients of the new job (scheduled: in the segment now; those who reply or opt out meanwhile drop out). */
  recipients: z.number().int(),
  creditsCharged: z.number().int().optional(),
  skipped: z.object({ optedOut: z.array(z.string()), noConsent: z.array(z.string()).optional() }).optional(),
  scheduledAt: z.string().optional(),
});
export type FollowUpResponse = z.infer<typeof FollowUpResponse>;

/** `POST /api/message-jobs/:jobId/follow-ups/:followUpId/cancel`: a scheduled follow-up that waits is cancelled. */
export const FollowUpParams = z.object({
  jobId: z.string().min(1).max(100),
  followUpId: z.string().min(1).max(100),
});

/** `POST /api/message-jobs/:jobId/segments/:segment/contact-list`: the segment saved as a new list. */
export const SegmentParams = z.object({ jobId: z.string().min(1).max(100), segment: FollowUpSegment });
export const SegmentListBody = z.object({ name: z.string().max(200) });
export const SegmentListResponse = z.object({
  success: z.literal(true),
  listId: z.string(),
  name: z.string(),
  imported: z.number().int(),
});
export type SegmentListResponse = z.infer<typeof SegmentListResponse>;
