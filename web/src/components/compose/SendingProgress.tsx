import { Badge, Group, Paper, Progress, SimpleGrid, Text, Title } from '@mantine/core';
import type { MessageJob } from '@wa/contract';
import { JOB_STATUS_COLOR } from '../../app/theme.ts';
import { formatNumber } from '../../lib/format.ts';

export type ProgressView = Pick<MessageJob, 'status' | 'progress' | 'results' | 'elapsedTimeMs'>;

/** The Sending Progress panel shown while a job sent with Send Now runs (spec section 2). */
export function SendingProgress({ job }: { job: ProgressView }) {
  const { completed, total, percentComplete } = job.progress;
  const percent = Math.round(percentComplete);
  return (
    <Paper withBorder p="md" radius="md" role="region" aria-label="Sending Progress">
      <Group justify="space-between" mb="sm">
        <Title order={3} size="h4">
          Sending Progress
        </Title>
        <Badge color={JOB_STATUS_COLOR[job.status] ?? 'gray'} aria-label={`Status: ${job.status}`}>
          {job.status}
        </Badge>
      </Group>
      <Progress
        value={percent}
        size="lg"
        animated={job.status === 'processing'}
        aria-label="Sending progress"
      />
      <Text size="sm" mt={6}>
        {formatNumber(completed)} of {formatNumber(total)} ({percent}%)
      </Text>
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
    </Paper>
  );
}
