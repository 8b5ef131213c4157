import { isFinished, type MessageJob } from '@wa/contract';
import { useEffect, useRef, useState } from 'react';
import type { Banner } from '../../lib/banner.ts';
import { formatNumber } from '../../lib/format.ts';
import { useInvalidate } from '../../lib/mutation.ts';
import { getJobDetails } from './api/get-job-details.ts';
import { messageJobKeys } from './api/keys.ts';

/** How often a retried job is read until it ends: the send pages' job poll (docs/decisions.md, Kept to the letter). */
export const RETRY_POLL_MS = 2_000;

type EndedJob = Pick<MessageJob, 'id' | 'status' | 'results'>;

/** A retry is over once its job is completed or failed again, or paused (it then waits for the user). */
const retryOver = (status: MessageJob['status']) => isFinished(status) || status === 'paused';

/** What replaces 'Retrying N failed messages' when the retry is over: the job's counts now. */
export function retryEndBanner(job: EndedJob): Banner {
  const { success, failed } = job.results;
  const counts = `${formatNumber(success)} sent, ${formatNumber(failed)} failed`;
  if (job.status === 'paused') return { color: 'yellow', text: `Retry paused: ${counts}` };
  return { color: failed > 0 ? 'yellow' : 'green', text: `Retry finished: ${counts}` };
}

/**
 * Follows a retried job every 2 s until the retry is over, then calls `onEnd` with the job and
 * reloads the list, so 'Retrying N failed messages' does not outlive the retry.
 * Returns the function that starts following a job.
 */
export function useRetryWatch(onEnd: (job: EndedJob) => void): (jobId: string) => void {
  const invalidate = useInvalidate();
  const [jobId, setJobId] = useState<string | null>(null);
  const end = useRef(onEnd);
  end.current = onEnd;

  useEffect(() => {
    if (!jobId) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const tick = async () => {
      try {
        const { job } = await getJobDetails(jobId, {
          detailsLimit: 0,
          media: false,
          signal: controller.signal,
        });
        if (stopped) return;
        if (retryOver(job.status)) {
          setJobId(null);
          end.current(job);
          void invalidate([messageJobKeys.all]);
          return;
        }
      } catch (err) {
        if (stopped) return;
        // As on the send pages: a failed poll is logged and the next one tried.
        console.error('Following the retry failed', err);
      }
      timer = setTimeout(tick, RETRY_POLL_MS);
    };
    timer = setTimeout(tick, RETRY_POLL_MS);
    return () => {
      stopped = true;
      controller.abort();
      clearTimeout(timer);
    };
  }, [jobId, invalidate]);

  return setJobId;
}
