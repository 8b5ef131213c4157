import { Badge, Progress, Text } from '@mantine/core';
import { jobProgress, jobWord, type MessageJob } from '@wa/contract';
import { formatNumber } from '../lib/format.ts';
import { JOB_STATUS_COLOR } from '../lib/theme.ts';

type JobView = Pick<MessageJob, 'status' | 'statusReason' | 'results' | 'progress'>;

/**
 * A job's status in the one vocabulary of STYLE.md (Jobs, Dashboard, MIS Report, the send page's
 * progress, the CSV): the badge and, unless `compact`, the line under it (8 of 9 sent; why it waits).
 */
export function JobStatusBadge(props: {
  job: JobView;
  size?: 'xs' | 'sm' | 'md' | 'lg';
  variant?: 'filled' | 'light';
  compact?: boolean;
  /** Names the badge 'Status: …' (the send page's panel, where it stands without a column). */
  named?: boolean;
}) {
  const view = jobWord(props.job);
  return (
    <>
      <Badge
        color={JOB_STATUS_COLOR[view.kind] ?? 'gray'}
        size={props.size ?? 'sm'}
        variant={props.variant ?? 'light'}
        styles={{ label: { overflow: 'visible' } }}
        aria-label={props.named ? `Status: ${view.label}` : undefined}
      >
        {view.label}
      </Badge>
      {!props.compact && view.detail && (
        <Text size="xs" c="dimmed" mt={2}>
          {view.detail}
        </Text>
      )}
    </>
  );
}

/** 'done / total (percent%)' of a job, as Message Jobs shows it; `of` writes 'done of total (percent%)'. */
export function jobProgressText(job: JobView, joiner: '/' | 'of' = '/'): string {
  const p = jobProgress(job);
  return `${formatNumber(p.done)} ${joiner} ${formatNumber(p.total)} (${p.percent}%)`;
}

/**
 * The job's progress bar: the sent share green, the failed share red (and the cancelled grey), so
 * that a job with failures never shows a full bar of one colour.
 */
export function JobProgressBar(props: {
  job: JobView;
  label: string;
  size?: 'sm' | 'md' | 'lg';
  animated?: boolean;
}) {
  const { total } = props.job.progress;
  const share = (n: number) => (total > 0 ? (n * 100) / total : 0);
  const { success, failed } = props.job.results;
  const other = Math.max(0, props.job.progress.completed - success - failed);
  return (
    <Progress.Root
      size={props.size ?? 'sm'}
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={jobProgress(props.job).percent}
      aria-valuetext={jobProgressText(props.job, 'of')}
    >
      <Progress.Section withAria={false} value={share(success)} color="green" animated={props.animated} />
      <Progress.Section withAria={false} value={share(failed)} color="red" />
      <Progress.Section withAria={false} value={share(other)} color="gray" />
    </Progress.Root>
  );
}
