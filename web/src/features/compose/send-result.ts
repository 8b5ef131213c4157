import type { MessageJob } from '@wa/contract';
import type { Banner } from '../../lib/banner.ts';
import type { Audience } from './compose-form.ts';

export const SENDING_TEXTS = {
  noSession: 'No active session found',
  sendFailed: 'Failed to send message',
  retryHint: ' You can retry failed messages from the Jobs page.',
  bulkInitiated: 'Message sending Initiated',
  bulkFailed: 'Message sending Failed',
} as const;

/** The result message once the job is completed or failed (spec section 4). */
export function resultBanner(job: Pick<MessageJob, 'status' | 'results'>, audience: Audience): Banner {
  const { success, failed } = job.results;
  if (audience === 'individuals') {
    return job.status === 'completed'
      ? { color: 'green', text: SENDING_TEXTS.bulkInitiated }
      : { color: 'red', text: SENDING_TEXTS.bulkFailed };
  }
  if (job.status === 'completed') {
    return { color: 'green', text: `Message sending complete! Successfully sent to ${success} groups.` };
  }
  const base = `Message sending failed. Successfully sent to ${success} groups. Failed for ${failed} groups.`;
  return { color: 'red', text: failed > 0 ? base + SENDING_TEXTS.retryHint : base };
}

export const isFinal = (status: MessageJob['status']) => status === 'completed' || status === 'failed';
