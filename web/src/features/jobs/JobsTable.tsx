import { Button, Stack, Table, Text, Tooltip } from '@mantine/core';
import { type MessageJob, phoneOfAccount } from '@wa/contract';
import { JobId } from '../../components/JobId.tsx';
import { JobProgressBar, JobStatusBadge, jobProgressText } from '../../components/JobStatusBadge.tsx';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import {
  canEdit,
  canPause,
  canResume,
  canRetry,
  deliveryFigures,
  jobTypeLabel,
  messagePreview,
  repeatLabel,
  scheduledFor,
} from './jobs-view.ts';

/** What each control does, on hover and focus (the three read alike). */
export const ACTION_HELP = {
  pause: 'Stops after the message being sent; the rest wait, still paid for, until you press Resume.',
  cancelSeries:
    'No more repeats start; the next one, not yet paid for, is removed. Repeats already sent stay.',
  edit: 'Change its time, text or recipients before it starts; the credits held follow the recipients.',
  delete: 'Removes this job. Messages not yet sent are not sent, and their credits come back to you.',
} as const;

const ROW_HEIGHT = 64;

type Props = {
  jobs: MessageJob[];
  onView: (job: MessageJob) => void;
  onRetry: (job: MessageJob) => void;
  onDelete: (job: MessageJob) => void;
  onPause: (job: MessageJob) => void;
  onResume: (job: MessageJob) => void;
  /** Opens 'Edit job' for a job that has not started. */
  onEdit?: (job: MessageJob) => void;
  /** Stops the series of a repeating job (its occurrence awaiting start goes). */
  onCancelSeries?: (job: MessageJob) => void;
  retryingId: string | null;
  /** The job whose pause or resume is under way. */
  controllingId: string | null;
  /** Job id → failures a retry may fix (absent: not known yet). */
  retryable: Record<string, number>;
};

function StatusCell({ job }: { job: MessageJob }) {
  return <JobStatusBadge job={job} />;
}

function ProgressCell({ job }: { job: MessageJob }) {
  return (
    <Stack gap={4}>
      <JobProgressBar job={job} label={`Progress of job ${job.id}`} />
      <Text size="xs">{jobProgressText(job)}</Text>
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
      {/* Beyond the spec: what became of the sent messages, with their rates. */}
      {deliveryFigures(job).map((f) => (
        <Text key={f.label} size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {f.label}: {formatNumber(f.count)} ({f.rate})
        </Text>
      ))}
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
      {canRetry(job, props.retryable[job.id]) && (
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
      {canEdit(job) && props.onEdit && (
        <Tooltip label={ACTION_HELP.edit} multiline w={260} withArrow>
          <Button size="compact-xs" variant="light" onClick={() => props.onEdit?.(job)}>
            Edit
          </Button>
        </Tooltip>
      )}
      {canPause(job) && (
        <Tooltip label={ACTION_HELP.pause} multiline w={260} withArrow>
          <Button
            size="compact-xs"
            variant="light"
            color="yellow"
            loading={props.controllingId === job.id}
            onClick={() => props.onPause(job)}
          >
            Pause
          </Button>
        </Tooltip>
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
        <Tooltip label={ACTION_HELP.cancelSeries} multiline w={260} withArrow>
          <Button size="compact-xs" variant="light" color="grape" onClick={() => props.onCancelSeries?.(job)}>
            Cancel series
          </Button>
        </Tooltip>
      )}
      <Tooltip label={ACTION_HELP.delete} multiline w={260} withArrow>
        <Button size="compact-xs" variant="light" color="red" onClick={() => props.onDelete(job)}>
          Delete
        </Button>
      </Tooltip>
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
        { label: 'Phone Number', value: phoneOfAccount(job.sessionId) },
        { label: 'Created', value: formatDateTime(job.createdAt) },
      ]}
      actions={<Actions job={job} {...props} />}
    />
  );
}

const COLUMNS = ['Job ID', 'Phone Number', 'Type', 'Status', 'Progress', 'Results', 'Created', 'Actions'].map(
  (header) => ({ header }),
);

/**
 * The jobs table of the specification, fitting its box at 1280 px (short ids, wrapping cells);
 * below 768 px each job is a card with every field and action. Only the visible rows are drawn.
 */
export function JobsTable(props: Props) {
  return (
    <ListTable
      label="Message jobs"
      rows={props.jobs}
      rowKey={(job) => job.id}
      columns={COLUMNS}
      empty="No jobs found"
      virtual={{ estimateRowHeight: ROW_HEIGHT, maxHeight: 'calc(100vh - 260px)', fit: true, overscan: 8 }}
      tableProps={{ striped: false, horizontalSpacing: 8 }}
      cells={(job) => (
        <>
          <Table.Td>
            <JobId id={job.id} />
          </Table.Td>
          <Table.Td>
            <Text size="sm">{phoneOfAccount(job.sessionId)}</Text>
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
        </>
      )}
      card={(job) => <JobCard job={job} {...props} />}
    />
  );
}
