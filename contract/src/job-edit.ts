import { z } from 'zod';
import { PollContent } from './messaging.ts';

/**
 * PATCH /api/message-jobs-details/:jobId: moves a scheduled job that has not started to another
 * time. With `content` or `chatIds` too, edits it (see EditJobBody).
 */
export const RescheduleJobBody = z.object({ scheduleTime: z.string().min(1).max(100) });
export type RescheduleJobBody = z.infer<typeof RescheduleJobBody>;

/**
 * The same PATCH, editing a job that has not started (scheduled, or paused before its first
 * message): its time, its text (a text message's, or a file's caption), a media job's file
 * (`data` in base64 with `mime` and `fileName`, as a send takes it), a poll job's poll, and its
 * recipients (phone numbers, or the account's group ids), each optional. The credits held follow the recipients:
 * more are charged, fewer refunded, each with its ledger row. A paused job given a time is
 * scheduled again for it.
 */
export const EditJobBody = z.object({
  scheduleTime: z.string().min(1).max(100).optional(),
  content: z.string().max(65_536).optional(),
  chatIds: z.array(z.string().min(1).max(200)).min(1).max(100_000).optional(),
  poll: PollContent.optional(),
  data: z.string().min(1).optional(),
  mime: z.string().max(200).optional(),
  fileName: z.string().max(255).optional(),
});
export type EditJobBody = z.infer<typeof EditJobBody>;

export const EditJobResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  /** Recipients after the edit. */
  total: z.number().int(),
  /** Credits charged (positive) or refunded (negative) by the edit. */
  creditsCharged: z.number().int(),
  skipped: z.object({ optedOut: z.array(z.string()), noConsent: z.array(z.string()).optional() }).optional(),
});
export type EditJobResponse = z.infer<typeof EditJobResponse>;

export const RESCHEDULE_TEXTS = {
  moved: (at: string) => `Job moved to ${at}`,
  notScheduled: 'Only a scheduled job that has not started can be moved',
  series: 'A repeating job moves with its series: cancel the series and schedule it again',
  edited: 'Job updated',
  notEditable: 'Only a scheduled or paused job that has not started can be edited',
  nothingToEdit: 'Give a new time, text, file, poll or recipients',
  notPoll: 'Only a poll job takes a poll',
  notMedia: 'Only a media job takes a file',
  spread: 'A job sent from several accounts keeps its recipients: delete it and send it again',
  personalised:
    'This message is personalised from contact fields: delete the job and send it again to change its text or recipients',
} as const;
