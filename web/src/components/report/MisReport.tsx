import {
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Code,
  Group,
  Loader,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconFileTypeCsv, IconPrinter } from '@tabler/icons-react';
import type { MessageJob } from '@wa/contract';
import { useState } from 'react';
import { JOB_STATUS_COLOR } from '../../app/theme.ts';
import { ApiError } from '../../lib/api.ts';
import { exportCsv, printTable } from '../../lib/export.ts';
import { formatDateTime, formatNumber, phoneOfSession } from '../../lib/format.ts';
import { VirtualTable } from '../VirtualTable.tsx';
import { type ContentView, MessageContentModal } from './MessageContentModal.tsx';
import { useReportJobs } from './report-query.ts';
import {
  contentPreview,
  contentText,
  type DateRange,
  PREVIEW_LENGTH,
  REPORT_CSV_FILE,
  REPORT_HEADERS,
  reportRows,
} from './report-rows.ts';

const COLUMNS = [
  'Job ID',
  'Phone Number',
  'Message Type',
  'Content',
  'Status',
  'Total Messages',
  'Success',
  'Failed',
  'Created Date',
];

const jobsError = (e: Error) =>
  e instanceof ApiError ? (e.serverMessage ?? 'Failed to fetch jobs') : `Error fetching jobs: ${e.message}`;

function ContentCell(props: { job: MessageJob; onShow: (view: ContentView) => void }) {
  const { job } = props;
  const preview = contentPreview(job);
  const long = contentText(job).length > PREVIEW_LENGTH;
  let action: { label: string; mode: ContentView['mode'] } | null = null;
  if (job.messageType === 'poll') action = { label: 'Show Details', mode: 'poll' };
  else if (job.messageType === 'media') action = { label: 'Show Media', mode: 'media' };
  else if (long) action = { label: 'Show more', mode: 'text' };
  return (
    <Group gap={6} wrap="nowrap">
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

/**
 * The MIS Report (spec section 2): the jobs of one user, filtered by From and To (both ends
 * inclusive), as a table, a CSV file and a print view; refreshed every 15 s.
 */
export function MisReport(props: { userId: string; titleOrder?: 2 | 3 }) {
  const [range, setRange] = useState<DateRange>({ from: '', to: '' });
  const [view, setView] = useState<ContentView | null>(null);
  const jobs = useReportJobs(props.userId, range);
  const list = jobs.data ?? [];

  return (
    <Card withBorder padding="sm" radius="md">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end" gap="sm">
          <Title order={props.titleOrder ?? 3}>MIS Report</Title>
          <Group gap="xs">
            <Button
              variant="light"
              leftSection={<IconFileTypeCsv size={18} />}
              onClick={() => exportCsv(REPORT_CSV_FILE, REPORT_HEADERS, reportRows(list))}
            >
              CSV
            </Button>
            <Button
              variant="light"
              leftSection={<IconPrinter size={18} />}
              onClick={() => printTable('MIS Report', REPORT_HEADERS, reportRows(list))}
            >
              PDF/Print
            </Button>
          </Group>
        </Group>
        <Group align="flex-end" gap="sm">
          <TextInput
            type="date"
            label="From"
            value={range.from}
            max={range.to || undefined}
            onChange={(e) => {
              const from = e.currentTarget.value;
              setRange((r) => ({ ...r, from }));
            }}
            w={{ base: '100%', xs: 180 }}
          />
          <TextInput
            type="date"
            label="To"
            value={range.to}
            min={range.from || undefined}
            onChange={(e) => {
              const to = e.currentTarget.value;
              setRange((r) => ({ ...r, to }));
            }}
            w={{ base: '100%', xs: 180 }}
          />
          <Button
            variant="default"
            onClick={() => setRange({ from: '', to: '' })}
            disabled={!range.from && !range.to}
          >
            Clear
          </Button>
        </Group>

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
              {`${formatNumber(list.length)} ${list.length === 1 ? 'job' : 'jobs'}`}
            </Text>
            <VirtualTable
              label="MIS Report jobs"
              items={list}
              getKey={(j) => j.id}
              estimateRowHeight={45}
              columnCount={COLUMNS.length}
              header={COLUMNS.map((c) => (
                <Table.Th key={c} style={{ whiteSpace: 'nowrap' }}>
                  {c}
                </Table.Th>
              ))}
              renderRow={(j, _i, rowProps) => (
                <Table.Tr {...rowProps}>
                  <Table.Td>
                    <Code style={{ whiteSpace: 'nowrap' }}>{j.id}</Code>
                  </Table.Td>
                  <Table.Td>{phoneOfSession(j.sessionId)}</Table.Td>
                  <Table.Td>{j.messageType}</Table.Td>
                  <Table.Td>
                    <ContentCell job={j} onShow={setView} />
                  </Table.Td>
                  <Table.Td>
                    <Badge color={JOB_STATUS_COLOR[j.status] ?? 'gray'} variant="light">
                      {j.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{formatNumber(j.progress.total)}</Table.Td>
                  <Table.Td>{formatNumber(j.results.success)}</Table.Td>
                  <Table.Td>{formatNumber(j.results.failed)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(j.createdAt)}</Table.Td>
                </Table.Tr>
              )}
            />
          </>
        )}
      </Stack>
      <MessageContentModal view={view} onClose={() => setView(null)} />
    </Card>
  );
}
