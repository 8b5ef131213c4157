import { Badge, Button, Group, Progress, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type MessageJob, phoneOfSession } from '@wa/contract';
import { useRef } from 'react';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { JOB_STATUS_COLOR } from '../../lib/theme.ts';
import { canPause, canResume, canRetry, jobTypeLabel, progressLabel, repeatLabel } from './jobs-view.ts';

const ROW_HEIGHT = 64;

/** The jobs table of spec section 2; only the visible rows are rendered. */
export function JobsTable(props: {
  jobs: MessageJob[];
  onView: (job: MessageJob) => void;
  onRetry: (job: MessageJob) => void;
  onDelete: (job: MessageJob) => void;
  onPause: (job: MessageJob) => void;
  onResume: (job: MessageJob) => void;
  /** Stops the series of a repeating job (its occurrence awaiting start goes). */
  onCancelSeries?: (job: MessageJob) => void;
  retryingId: string | null;
  /** The job whose pause or resume is under way. */
  controllingId: string | null;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: props.jobs.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    // A row never measures below its estimate: a row measured at 0 (not laid out yet) would
    // otherwise make the virtualizer render ever more rows.
    measureElement: (el) => Math.max(el.getBoundingClientRect().height, ROW_HEIGHT),
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;

  return (
    <ScrollArea.Autosize mah="calc(100vh - 260px)" mih={200} viewportRef={scrollRef} type="auto">
      <Table stickyHeader miw={960} verticalSpacing="xs" highlightOnHover aria-label="Message jobs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Job ID</Table.Th>
            <Table.Th>Phone Number</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Progress</Table.Th>
            <Table.Th>Results</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {padTop > 0 && (
            <tr aria-hidden>
              <td colSpan={8} style={{ height: padTop, padding: 0, border: 0 }} />
            </tr>
          )}
          {items.map((item) => {
            const job = props.jobs[item.index];
            return (
              <Table.Tr key={job.id} ref={virtualizer.measureElement} data-index={item.index}>
                <Table.Td>
                  <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }} maw={120}>
                    {job.id}
                  </Text>
                </Table.Td>
                <Table.Td>{phoneOfSession(job.sessionId)}</Table.Td>
                <Table.Td>
                  {jobTypeLabel(job)}
                  {repeatLabel(job) && (
                    <Text size="xs" c="violet.8" mt={2}>
                      {repeatLabel(job)}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td miw={128}>
                  <Badge
                    color={JOB_STATUS_COLOR[job.status] ?? 'gray'}
                    size="sm"
                    styles={{ label: { overflow: 'visible' } }}
                  >
                    {job.status}
                  </Badge>
                  {job.statusReason && (
                    <Text size="xs" c="dimmed" mt={2}>
                      {job.statusReason}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td miw={130}>
                  <Stack gap={4}>
                    <Progress
                      value={job.progress.percentComplete}
                      color={JOB_STATUS_COLOR[job.status] ?? 'gray'}
                      aria-label={`Progress of job ${job.id}`}
                    />
                    <Text size="xs">{progressLabel(job)}</Text>
                  </Stack>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" c="var(--mantine-color-green-light-color)" style={{ whiteSpace: 'nowrap' }}>
                    Success: {formatNumber(job.results.success)}
                  </Text>
                  <Text size="xs" c="var(--mantine-color-red-light-color)" style={{ whiteSpace: 'nowrap' }}>
                    Failed: {formatNumber(job.results.failed)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="xs">{formatDateTime(job.createdAt)}</Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={6} wrap="wrap" maw={190}>
                    <Button size="compact-xs" variant="light" onClick={() => props.onView(job)}>
                      View
                    </Button>
                    {canRetry(job) && (
                      <Button
                        size="compact-xs"
                        variant="light"
                        color="orange"
                        loading={props.retryingId === job.id}
                        onClick={() => props.onRetry(job)}
                      >
                        Retry Failed
                      </Button>
                    )}
                    {canPause(job) && (
                      <Button
                        size="compact-xs"
                        variant="light"
                        color="yellow"
                        loading={props.controllingId === job.id}
                        onClick={() => props.onPause(job)}
                      >
                        Pause
                      </Button>
                    )}
                    {canResume(job) && (
                      <Button
                        size="compact-xs"
                        variant="light"
                        color="teal"
                        loading={props.controllingId === job.id}
                        onClick={() => props.onResume(job)}
                      >
                        Resume
                      </Button>
                    )}
                    {job.repeat?.active && props.onCancelSeries && job.status === 'scheduled' && (
                      <Button
                        size="compact-xs"
                        variant="light"
                        color="grape"
                        onClick={() => props.onCancelSeries?.(job)}
                      >
                        Cancel series
                      </Button>
                    )}
                    <Button size="compact-xs" variant="light" color="red" onClick={() => props.onDelete(job)}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden>
              <td colSpan={8} style={{ height: padBottom, padding: 0, border: 0 }} />
            </tr>
          )}
        </Table.Tbody>
      </Table>
    </ScrollArea.Autosize>
  );
}
