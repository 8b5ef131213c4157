import {
  Alert,
  Button,
  Card,
  Center,
  Group,
  Loader,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { DateInput } from '@mantine/dates';
import '@mantine/dates/styles.css';
import { useDebouncedValue } from '@mantine/hooks';
import { IconFileTypeCsv, IconPrinter } from '@tabler/icons-react';
import {
  contentPreview,
  contentText,
  formatRupees,
  type MessageJob,
  PREVIEW_LENGTH,
  phoneOfAccount,
  REPORT_CSV_FILE,
  rateText,
  viewedByText,
} from '@wa/contract';
import { useMemo, useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { FollowUpModal } from '../../components/follow-up/FollowUpModal.tsx';
import { JobId } from '../../components/JobId.tsx';
import { JobStatusBadge } from '../../components/JobStatusBadge.tsx';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { LoadMoreButton } from '../../components/PageHeader.tsx';
import { ApiError, apiDownload, messageOf } from '../../lib/api.ts';
import { AppDates, CALENDAR_LABELS } from '../../lib/dates.tsx';
import { printTable } from '../../lib/export.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { ALL_DATES, reportFilter, useReportJobs } from './api/get-report-jobs.ts';
import { type ContentView, MessageContentModal } from './MessageContentModal.tsx';
import {
  DATE_FORMAT,
  type DateRange,
  parseDay,
  QUICK_RANGES,
  quickRange,
  quickRangeOf,
  rangeText,
  reversedText,
} from './report-range.ts';
import { printedReport } from './report-rows.ts';

/** Most telling first: which job, when, what, how it went; the account last. */
const COLUMNS = [
  'Job ID',
  'Created Date',
  'Content',
  'Message Type',
  'Status',
  'Total Messages',
  'Success',
  'Failed',
  'Phone Number',
];

/** Beyond the spec: a receipt or reply figure with its rate of the sent messages. */
const withRate = (count: number, job: MessageJob) =>
  `${formatNumber(count)} (${rateText(count, job.results.success)})`;

// A status's viewers come back as its read receipts: 'Viewed by N of M'.
const deliveryCells = (j: MessageJob) =>
  j.messageType === 'status'
    ? [{ label: 'Views', value: viewedByText(j.delivery.read, j.results.success) }]
    : [
        { label: 'Delivered', value: withRate(j.delivery.delivered, j) },
        { label: 'Read', value: withRate(j.delivery.read, j) },
        { label: 'Replied', value: withRate(j.delivery.replied, j) },
        { label: 'Undelivered', value: withRate(j.delivery.undelivered, j) },
      ];

/** A Cloud API template job: its category and Meta's charge for what was delivered so far. */
function CloudCost({ job }: { job: MessageJob }) {
  return (
    <Text size="xs" aria-label="Meta's charge">
      {job.templateCategory} · {formatRupees(job.costUnits ?? 0)}
    </Text>
  );
}

const jobsError = (e: Error) =>
  e instanceof ApiError ? (e.serverMessage ?? 'Failed to fetch jobs') : `Error fetching jobs: ${e.message}`;

/** A one-to-one job with sent or failed messages may be followed up (a group job has no one-to-one segments). */
const followsUp = (j: MessageJob) =>
  j.audience === 'individuals' && j.messageType !== 'status' && j.results.success + j.results.failed > 0;

function FollowUpButton(props: { job: MessageJob; onOpen: (job: MessageJob) => void }) {
  if (!followsUp(props.job)) return null;
  return (
    <Button
      size="compact-xs"
      variant="light"
      mt={4}
      aria-label={`Follow up job ${props.job.id}`}
      onClick={() => props.onOpen(props.job)}
    >
      Follow up
    </Button>
  );
}

function ContentCell(props: { job: MessageJob; onShow: (view: ContentView) => void }) {
  const { job } = props;
  const preview = contentPreview(job);
  const long = contentText(job).length > PREVIEW_LENGTH;
  let action: { label: string; mode: ContentView['mode'] } | null = null;
  if (job.messageType === 'poll') action = { label: 'Show Details', mode: 'poll' };
  else if (job.messageType === 'media') action = { label: 'Show Media', mode: 'media' };
  else if (long) action = { label: 'Show more', mode: 'text' };
  return (
    <Group gap={6} wrap="wrap">
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {preview}
      </Text>
      {action && (
        <Button size="compact-xs" variant="light" onClick={() => props.onShow({ job, mode: action.mode })}>
          {action.label}
        </Button>
      )}
    </Group>
  );
}

const phonesOf = (job: MessageJob) => (job.sessionIds ?? [job.sessionId]).map(phoneOfAccount).join(', ');

/** The one status vocabulary: 'Partly sent' with '8 of 9 sent', not a red FAILED. */
function StatusBadge({ job }: { job: MessageJob }) {
  return <JobStatusBadge job={job} size="md" />;
}

/**
 * The MIS Report: the jobs of one user, filtered by From and To (both ends
 * inclusive) and a search, as a table read from the server a page at a time, a CSV file the
 * server writes, and a print view of the rows shown; refreshed every 15 s (see useReportJobs).
 */
export function MisReport(props: { userId: string; titleOrder?: 1 | 3 }) {
  const [range, setRange] = useState<DateRange>(ALL_DATES);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const [view, setView] = useState<ContentView | null>(null);
  const [followUp, setFollowUp] = useState<MessageJob | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const filter = useMemo(() => reportFilter(range, q), [range, q]);
  const { pages: jobs, jobs: list, total } = useReportJobs(props.userId, filter);
  const reversed = reversedText(range);

  // The file is written by the server from the whole range (flat memory), not from the rows loaded here.
  const exportFile = () => {
    if (total === 0) return window.alert('No data to export');
    setExportError(null);
    const params = new URLSearchParams({ tz: Intl.DateTimeFormat().resolvedOptions().timeZone });
    if (filter.from) params.set('from', filter.from);
    if (filter.to) params.set('to', filter.to);
    if (q) params.set('q', q);
    apiDownload(
      `/api/message-jobs/${encodeURIComponent(props.userId)}/export.csv?${params}`,
      REPORT_CSV_FILE,
    ).catch((err) => setExportError(messageOf(err)));
  };

  return (
    <Card withBorder padding="sm" radius="md">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end" gap="sm">
          <Title order={props.titleOrder ?? 3} size={props.titleOrder === 1 ? 'h2' : undefined}>
            MIS Report
          </Title>
          <Group gap="xs">
            <Button variant="light" leftSection={<IconFileTypeCsv size={18} />} onClick={exportFile}>
              CSV
            </Button>
            <Button
              variant="light"
              leftSection={<IconPrinter size={18} />}
              onClick={() => {
                const printed = printedReport(list);
                printTable('MIS Report', printed.headers, printed.rows, rangeText(range));
              }}
            >
              PDF/Print
            </Button>
          </Group>
        </Group>
        <Group gap="xs" role="group" aria-label="Quick ranges">
          {QUICK_RANGES.map((q) => {
            const chosen = quickRangeOf(range) === q.value;
            return (
              <Button
                key={q.value}
                size="compact-sm"
                variant={chosen ? 'filled' : 'default'}
                aria-pressed={chosen}
                onClick={() => setRange(quickRange(q.value))}
              >
                {q.label}
              </Button>
            );
          })}
        </Group>
        <Group align="flex-end" gap="sm">
          <AppDates>
            <DateInput
              label="From"
              placeholder="dd/mm/yyyy"
              valueFormat={DATE_FORMAT}
              dateParser={parseDay}
              value={range.from || null}
              onChange={(from) => setRange((r) => ({ ...r, from: from ?? '' }))}
              clearable
              ariaLabels={CALENDAR_LABELS}
              w={{ base: '100%', xs: 180 }}
            />
            <DateInput
              label="To"
              placeholder="dd/mm/yyyy"
              valueFormat={DATE_FORMAT}
              dateParser={parseDay}
              value={range.to || null}
              onChange={(to) => setRange((r) => ({ ...r, to: to ?? '' }))}
              clearable
              ariaLabels={CALENDAR_LABELS}
              w={{ base: '100%', xs: 180 }}
            />
          </AppDates>
          <Button variant="default" onClick={() => setRange(ALL_DATES)} disabled={!range.from && !range.to}>
            Clear
          </Button>
          <TextInput
            label="Search jobs"
            placeholder="A job ID or words of the message"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            maxLength={200}
            w={{ base: '100%', xs: 280 }}
          />
        </Group>
        <ErrorAlert error={exportError} />
        {reversed && (
          <Alert color="yellow" variant="light" role="alert">
            {reversed}
          </Alert>
        )}

        {jobs.isLoading ? (
          <Center py="xl">
            <Group gap="sm">
              <Loader size="sm" />
              <Text>Loading jobs...</Text>
            </Group>
          </Center>
        ) : jobs.error && !jobs.data ? (
          <Alert color="red">{jobsError(jobs.error)}</Alert>
        ) : list.length === 0 ? (
          <Text ta="center" py="lg" c="dimmed">
            No jobs found
          </Text>
        ) : (
          <>
            <Text size="sm" c="dimmed" aria-live="polite">
              {`${formatNumber(total)} ${total === 1 ? 'job' : 'jobs'}`}
              {list.length < total ? ` (${formatNumber(list.length)} shown)` : ''}
            </Text>
            <ListTable
              label="MIS Report jobs"
              empty="No jobs found"
              rows={list}
              rowKey={(j) => j.id}
              virtual={{ estimateRowHeight: 45, fit: true }}
              columns={COLUMNS.map((header) => ({ header }))}
              cells={(j) => (
                <>
                  <Table.Td>
                    <JobId id={j.id} />
                  </Table.Td>
                  <Table.Td>{formatDateTime(j.createdAt)}</Table.Td>
                  <Table.Td>
                    <ContentCell job={j} onShow={setView} />
                  </Table.Td>
                  <Table.Td>
                    {j.messageType}
                    {j.templateCategory !== undefined && <CloudCost job={j} />}
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge job={j} />
                  </Table.Td>
                  <Table.Td>{formatNumber(j.progress.total)}</Table.Td>
                  <Table.Td>
                    {formatNumber(j.results.success)}
                    {/* Delivered, read, replied and undelivered under the sent count, a line each
                       : columns of their own made the table scroll sideways at 1280 px.
                        The CSV and the cards keep them apart. */}
                    {deliveryCells(j).map((c) => (
                      <Text key={c.label} size="xs">
                        {c.label} {c.value}
                      </Text>
                    ))}
                    <FollowUpButton job={j} onOpen={setFollowUp} />
                  </Table.Td>
                  <Table.Td>{formatNumber(j.results.failed)}</Table.Td>
                  {/* A job spread over accounts lists each; Job Details says which sent each message. */}
                  <Table.Td>{phonesOf(j)}</Table.Td>
                </>
              )}
              card={(j) => (
                <RowCard
                  title={<JobId id={j.id} />}
                  fields={[
                    { label: 'Created Date', value: formatDateTime(j.createdAt) },
                    { label: 'Content', value: <ContentCell job={j} onShow={setView} /> },
                    { label: 'Message Type', value: j.messageType },
                    ...(j.templateCategory !== undefined
                      ? [{ label: "Meta's charge", value: <CloudCost job={j} /> }]
                      : []),
                    { label: 'Status', value: <StatusBadge job={j} /> },
                    { label: 'Total Messages', value: formatNumber(j.progress.total) },
                    { label: 'Success', value: formatNumber(j.results.success) },
                    { label: 'Failed', value: formatNumber(j.results.failed) },
                    ...deliveryCells(j),
                    { label: 'Phone Number', value: phonesOf(j) },
                    ...(followsUp(j)
                      ? [{ label: 'Follow up', value: <FollowUpButton job={j} onOpen={setFollowUp} /> }]
                      : []),
                  ]}
                />
              )}
            />
            <Group justify="center">
              <LoadMoreButton list={jobs} label="Load more jobs" />
            </Group>
          </>
        )}
      </Stack>
      <MessageContentModal view={view} onClose={() => setView(null)} />
      {followUp && <FollowUpModal job={followUp} onClose={() => setFollowUp(null)} />}
    </Card>
  );
}
