import { isFinished, type MessageJob, TEXTS } from '@wa/contract';
import type { Banner } from '../../lib/banner.ts';
import { formatNumber } from '../../lib/format.ts';
import type { Audience } from './compose-form.ts';

export const SENDING_TEXTS = {
  noSession: TEXTS.noSession,
  sendFailed: 'Failed to send message',
  retryHint: ' You can retry failed messages from the Jobs page.',
  bulkInitiated: 'Message sending Initiated',
  bulkFailed: 'Message sending Failed',
} as const;

/** A banner of the send pages; `detail` is a second line beside the spec's text. */
export type SendBanner = Banner & { detail?: string };

/**
 * The counts beside the spec's words (19 of 20 sent read as a plain failure), and where
 * the failed ones can be sent again.
 */
export function countsText(results: Pick<MessageJob['results'], 'success' | 'failed'>): string {
  const counts = `${formatNumber(results.success)} sent, ${formatNumber(results.failed)} failed`;
  return results.failed > 0 ? `${counts} — Retry Failed in Message Jobs` : counts;
}

/**
 * What became of the bulk page's finished job, under the spec's 'Message sending Initiated' or
 * 'Message sending Failed': the counts in words, with no second verdict beside the spec's.
 */
export function outcomeText(results: Pick<MessageJob['results'], 'success' | 'failed'>): string {
  const { success, failed } = results;
  const words =
    failed === 0
      ? 'Every message was sent'
      : success === 0
        ? 'No message was sent'
        : `${formatNumber(failed)} of ${formatNumber(success + failed)} did not go`;
  return `${words}: ${countsText(results)}`;
}

/**
 * The result message once the job is completed or failed, the spec's words kept
 * as they are. A job that failed for some recipients only is shown as a partial success (yellow),
 * not as a failure.
 */
export function resultBanner(job: Pick<MessageJob, 'status' | 'results'>, audience: Audience): SendBanner {
  const { success, failed } = job.results;
  const color = job.status === 'completed' ? 'green' : success > 0 ? 'yellow' : 'red';
  if (audience === 'individuals') {
    const text = job.status === 'completed' ? SENDING_TEXTS.bulkInitiated : SENDING_TEXTS.bulkFailed;
    return { color, text, detail: outcomeText(job.results) };
  }
  if (job.status === 'completed') {
    return { color, text: `Message sending complete! Successfully sent to ${success} groups.` };
  }
  const base = `Message sending failed. Successfully sent to ${success} groups. Failed for ${failed} groups.`;
  return {
    color,
    text: failed > 0 ? base + SENDING_TEXTS.retryHint : base,
    detail: countsText(job.results),
  };
}

export const isFinal = isFinished;
