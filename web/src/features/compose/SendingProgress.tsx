import { Button, Group, Paper, SimpleGrid, Text, Title } from '@mantine/core';
import { IconPlayerPause, IconPlayerPlay } from '@tabler/icons-react';
import { isPausable, type MessageJob } from '@wa/contract';
import { useEffect, useRef, useState } from 'react';
import { JobProgressBar, JobStatusBadge, jobProgressText } from '../../components/JobStatusBadge.tsx';
import { NoticeAlert } from '../../components/NoticeAlert.tsx';
import { errorText } from '../../lib/api.ts';
import type { Banner } from '../../lib/banner.ts';
import { formatNumber } from '../../lib/format.ts';
import { usePauseJob } from '../jobs/api/pause-job.ts';
import { useResumeJob } from '../jobs/api/resume-job.ts';
import { focusIntoView } from './into-view.ts';

/**
 * What the panel shows of the job. `statusReason` comes with the first poll; Pause and Resume need
 * the `id` (the send's answer gives it).
 */
export type ProgressView = Pick<MessageJob, 'status' | 'progress' | 'results' | 'elapsedTimeMs'> &
  Partial<Pick<MessageJob, 'id' | 'statusReason'>>;

/** A job that runs or waits for its turn can be paused; a paused one resumed (as on the Jobs page). */

/**
 * The Sending Progress panel shown while a job sent with Send Now runs, with
 * Pause / Resume. It appears when a send starts and is then brought into view and focused (the
 * Send Now button the focus was on is disabled meanwhile).
 */
export function SendingProgress({ job }: { job: ProgressView }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (ref.current) focusIntoView(ref.current);
  }, []);
  const pause = usePauseJob();
  const resume = useResumeJob();
  const [notice, setNotice] = useState<Banner | null>(null);
  // What the last answered Pause or Resume made of the job, until the next poll shows it.
  const [acted, setActed] = useState<{ from: MessageJob['status']; to: MessageJob['status'] } | null>(null);
  const status = acted && acted.from === job.status ? acted.to : job.status;
  // The same word and figures as Message Jobs: 'waiting' with its reason, not 'processing'.
  const view = {
    ...job,
    status,
    statusReason: acted?.from === job.status ? null : (job.statusReason ?? null),
  };

  const control = (action: 'pause' | 'resume') => {
    if (!job.id) return;
    setNotice(null);
    const from = job.status;
    (action === 'pause' ? pause : resume).mutate(job.id, {
      onSuccess: (res) => {
        setActed({ from, to: action === 'pause' ? 'paused' : 'processing' });
        setNotice({ color: 'green', text: res.message });
      },
      onError: (err) =>
        setNotice({
          color: 'red',
          text: errorText(err, `Failed to ${action} the job`, `Failed to ${action} the job`),
        }),
    });
  };

  return (
    <Paper ref={ref} tabIndex={-1} withBorder p="md" radius="md" role="region" aria-label="Sending Progress">
      <Group justify="space-between" mb="sm">
        <Title order={3} size="h4">
          Sending Progress
        </Title>
        <Group gap="xs">
          <JobStatusBadge job={view} size="md" variant="filled" compact named />
          {job.id && isPausable(status) && (
            <Button
              size="compact-sm"
              variant="light"
              color="yellow"
              leftSection={<IconPlayerPause size={14} aria-hidden />}
              loading={pause.isPending}
              onClick={() => control('pause')}
            >
              Pause
            </Button>
          )}
          {job.id && status === 'paused' && (
            <Button
              size="compact-sm"
              variant="light"
              color="teal"
              leftSection={<IconPlayerPlay size={14} aria-hidden />}
              loading={resume.isPending}
              onClick={() => control('resume')}
            >
              Resume
            </Button>
          )}
        </Group>
      </Group>
      <JobProgressBar job={view} size="lg" animated={status === 'processing'} label="Sending progress" />
      <Text size="sm" mt={6}>
        {jobProgressText(view, 'of')}
      </Text>
      {job.statusReason && acted?.from !== job.status && (
        <Text size="sm" c="dimmed" mt={4}>
          {job.statusReason}
        </Text>
      )}
      <SimpleGrid cols={{ base: 1, xs: 3 }} mt="sm" spacing="xs">
        <Text size="sm">
          Successful: <b>{formatNumber(job.results.success)}</b>
        </Text>
        <Text size="sm">
          Failed: <b>{formatNumber(job.results.failed)}</b>
        </Text>
        <Text size="sm">
          Elapsed: <b>{Math.round(job.elapsedTimeMs / 1000)} seconds</b>
        </Text>
      </SimpleGrid>
      <NoticeAlert mt="sm" p="xs" notice={notice} onClose={() => setNotice(null)} />
    </Paper>
  );
}
