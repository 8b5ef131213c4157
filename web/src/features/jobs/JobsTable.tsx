import { Badge, Button, Progress, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type MessageJob, phoneOfSession } from '@wa/contract';
import { useEffect, useRef } from 'react';
import { RowCard } from '../../components/DataTable.tsx';
import { JobId } from '../../components/JobId.tsx';
import { SMALL_SCREEN } from '../../components/VirtualTable.tsx';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { JOB_STATUS_COLOR } from '../../lib/theme.ts';
import {
  canPause,
  canResume,
  canRetry,
  jobTypeLabel,
  messagePreview,
  progressLabel,
  repeatLabel,
  scheduledFor,
} from './jobs-view.ts';

const ROW_HEIGHT = 64;
const CARD_HEIGHT = 260;

type Props = {
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
};

function StatusCell({ job }: { job: MessageJob }) {
  return (
    <>
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
    </>
  );
}

function ProgressCell({ job }: { job: MessageJob }) {
  return (
    <Stack gap={4}>
      <Progress
        value={job.progress.percentComplete}
        color={JOB_STATUS_COLOR[job.status] ?? 'gray'}
        aria-label={`Progress of job ${job.id}`}
      />
      <Text size="xs">{progressLabel(job)}</Text>
    </Stack>
  );
}

function ResultsCell({ job }: { job: MessageJob }) {
  return (
    <>
      <Text size="xs" c="var(--mantine-color-green-light-color)" style={{ whiteSpace: 'nowrap' }}>
        Success: {formatNumber(job.results.success)}
      </Text>
      <Text size="xs" c="var(--mantine-color-red-light-color)" style={{ whiteSpace: 'nowrap' }}>
        Failed: {formatNumber(job.results.failed)}
      </Text>
    </>
  );
}

/** Type, then (beyond the spec) a line of the message, so that jobs can be told apart. */
function TypeCell({ job }: { job: MessageJob }) {
  const preview = messagePreview(job);
  return (
    <>
      {jobTypeLabel(job)}
      {preview && (
        <Text size="xs" c="dimmed" lineClamp={1} title={preview} style={{ overflowWrap: 'anywhere' }}>
          {preview}
        </Text>
      )}
      {repeatLabel(job) && (
        <Text size="xs" c="violet.8" mt={2}>
          {repeatLabel(job)}
        </Text>
      )}
    </>
  );
}

/** Created, and for a scheduled job when it is to be sent. */
function CreatedCell({ job }: { job: MessageJob }) {
  const at = scheduledFor(job, formatDateTime);
  return (
    <>
      <Text size="xs">{formatDateTime(job.createdAt)}</Text>
      {at && (
        <Text size="xs" c="violet.8" fw={600} mt={2}>
          Scheduled for {at}
        </Text>
      )}
    </>
  );
}

function Actions({ job, ...props }: Props & { job: MessageJob }) {
  return (
    <>
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
        <Button size="compact-xs" variant="light" color="grape" onClick={() => props.onCancelSeries?.(job)}>
          Cancel series
        </Button>
      )}
      <Button size="compact-xs" variant="light" color="red" onClick={() => props.onDelete(job)}>
        Delete
      </Button>
    </>
  );
}

function JobCard({ job, ...props }: Props & { job: MessageJob }) {
  const at = scheduledFor(job, formatDateTime);
  const preview = messagePreview(job);
  return (
    <RowCard
      title={<JobId id={job.id} />}
      fields={[
        { label: 'Status', value: <StatusCell job={job} /> },
        { label: 'Type', value: jobTypeLabel(job) },
        ...(preview
          ? [
              {
                label: 'Message',
                value: (
                  <Text span size="sm" lineClamp={2}>
                    {preview}
                  </Text>
                ),
              },
            ]
          : []),
        ...(at ? [{ label: 'Scheduled for', value: at }] : []),
        ...(repeatLabel(job) ? [{ label: 'Repeats', value: repeatLabel(job) }] : []),
        { label: 'Progress', value: <ProgressCell job={job} /> },
        { label: 'Results', value: <ResultsCell job={job} /> },
        { label: 'Phone Number', value: phoneOfSession(job.sessionId) },
        { label: 'Created', value: formatDateTime(job.createdAt) },
      ]}
      actions={<Actions job={job} {...props} />}
    />
  );
}

/**
 * The jobs table of spec section 2, fitting its box at 1280 px (short ids, wrapping cells);
 * below 768 px each job is a card with every field and action. Only the visible rows are drawn.
 */
export function JobsTable(props: Props) {
  const cards = useMediaQuery(SMALL_SCREEN, false, { getInitialValueInEffect: false });
  const scrollRef = useRef<HTMLDivElement>(null);
  const minHeight = cards ? CARD_HEIGHT : ROW_HEIGHT;
  const virtualizer = useVirtualizer({
    count: props.jobs.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => minHeight,
    // A row never measures below its estimate: a row measured at 0 (not laid out yet) would
    // otherwise make the virtualizer render ever more rows.
    measureElement: (el) => Math.max(el.getBoundingClientRect().height, cards ? 80 : ROW_HEIGHT),
    getItemKey: (index) => props.jobs[index]?.id ?? index,
    overscan: 8,
    // Before the box is measured: a list of cards starts empty, so it would never be measured.
    initialRect: { width: 360, height: 700 },
  });
  useEffect(() => {
    if (cards !== undefined) virtualizer.measure();
  }, [cards, virtualizer]);
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;

  if (cards) {
    return (
      <ScrollArea.Autosize mah="calc(100vh - 220px)" mih={200} viewportRef={scrollRef} type="auto">
        <ul
          aria-label="Message jobs"
          style={{ listStyle: 'none', margin: 0, padding: 0, paddingTop: padTop, paddingBottom: padBottom }}
        >
          {items.map((item) => {
            const job = props.jobs[item.index];
            return (
              <li
                key={job.id}
                ref={virtualizer.measureElement}
                data-index={item.index}
                style={{ paddingBottom: 8 }}
              >
                <JobCard job={job} {...props} />
              </li>
            );
          })}
        </ul>
      </ScrollArea.Autosize>
    );
  }

  return (
    <ScrollArea.Autosize mah="calc(100vh - 260px)" mih={200} viewportRef={scrollRef} type="auto">
      <Table
        stickyHeader
        verticalSpacing="xs"
        horizontalSpacing={8}
        highlightOnHover
        aria-label="Message jobs"
      >
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
                  <JobId id={job.id} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{phoneOfSession(job.sessionId)}</Text>
                </Table.Td>
                <Table.Td maw={180}>
                  <TypeCell job={job} />
                </Table.Td>
                <Table.Td>
                  <StatusCell job={job} />
                </Table.Td>
                <Table.Td miw={100}>
                  <ProgressCell job={job} />
                </Table.Td>
                <Table.Td>
                  <ResultsCell job={job} />
                </Table.Td>
                <Table.Td maw={140}>
                  <CreatedCell job={job} />
                </Table.Td>
                <Table.Td>
                  <div style={{ display: 'flex', flexWrap: 'wrap', gap: 6, maxWidth: 150 }}>
                    <Actions job={job} {...props} />
                  </div>
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
