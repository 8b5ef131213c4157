import { Badge, Text } from '@mantine/core';
import type { MessageJob } from '@wa/contract';
import { jobBadge } from '../lib/job-status.ts';
import { JOB_STATUS_COLOR } from '../lib/theme.ts';

/**
 * A job's status in the one vocabulary of STYLE.md (Jobs, Dashboard, MIS Report, the send page's
 * progress): the badge and, unless `compact`, the line under it (8 of 9 sent; why it waits).
 */
export function JobStatusBadge(props: {
  job: Pick<MessageJob, 'status' | 'statusReason' | 'results' | 'progress'>;
  size?: 'xs' | 'sm' | 'md' | 'lg';
  variant?: 'filled' | 'light';
  compact?: boolean;
}) {
  const view = jobBadge(props.job);
  return (
    <>
      <Badge
        color={JOB_STATUS_COLOR[view.kind] ?? 'gray'}
        size={props.size ?? 'sm'}
        variant={props.variant ?? 'light'}
        styles={{ label: { overflow: 'visible' } }}
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
