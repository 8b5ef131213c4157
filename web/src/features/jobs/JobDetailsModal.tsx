import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  ScrollArea,
  SimpleGrid,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { JobDetail, JobWithDetails } from '@wa/contract';
import { useRef } from 'react';
import { useJobDetails } from '../../api/message-jobs.ts';
import { AppModal } from '../../components/AppModal.tsx';
import { errorText } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { JOB_STATUS_COLOR } from '../../lib/theme.ts';
import { canRetry, parsePoll } from './jobs-view.ts';

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div">
        {children}
      </Text>
    </div>
  );
}

function MessageContent({ job }: { job: JobWithDetails }) {
  if (job.messageType === 'poll') {
    const poll = parsePoll(job.messageContent);
    if (poll) {
      return (
        <Stack gap={2}>
          <Text size="sm" fw={500}>
            {poll.pollName}
          </Text>
          {poll.pollOptions.map((o, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: options may repeat
            <Text key={i} size="sm">
              • {o}
            </Text>
          ))}
          <Text size="xs" c="dimmed">
            {poll.allowMultipleAnswers ? 'Multiple answers allowed' : 'One answer'}
          </Text>
        </Stack>
      );
    }
  }
  return (
    <Stack gap={2}>
      {job.messageType === 'media' && (job.fileName || job.mediaMime) && (
        <Text size="xs" c="dimmed">
          {[job.fileName, job.mediaMime].filter(Boolean).join(' · ')}
        </Text>
      )}
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {job.messageContent ? job.messageContent : 'No text content (media message)'}
      </Text>
    </Stack>
  );
}

const ROW = 37;

/** The number a message went to when WhatsApp named another JID for it (Brazil's 9th digit…); null when the same. */
export function sentToNumber(d: Pick<JobDetail, 'chatId' | 'sentTo'>): string | null {
  if (!d.sentTo) return null;
  const to = d.sentTo.split('@')[0]!.split(':')[0]!;
  return to === d.chatId.split('@')[0]!.replace(/\D/g, '') ? null : to;
}

/** The account that sent a message, as its phone number (a sessionId is `<phone>_<suffix>`). */
export const accountNumber = (sessionId: string | undefined) => (sessionId ? sessionId.split('_')[0]! : '');

export function RecipientsTable({
  details,
  groups,
  showAccount = false,
}: {
  details: JobDetail[];
  groups: boolean;
  /** A column with the account that sends each message (a job spread over several accounts). */
  showAccount?: boolean;
}) {
  const columns = showAccount ? 5 : 4;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: details.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW,
    // A row never measures below its estimate: a row measured at 0 (not laid out yet) would
    // otherwise make the virtualizer render ever more rows.
    measureElement: (el) => Math.max(el.getBoundingClientRect().height, ROW),
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  return (
    <ScrollArea.Autosize mah={360} viewportRef={scrollRef} type="auto">
      <Table stickyHeader miw={560} verticalSpacing={6} aria-label="Recipients">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{groups ? 'Group' : 'Phone Number'}</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Sent At</Table.Th>
            <Table.Th>Error</Table.Th>
            {showAccount && <Table.Th>Sent From</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {padTop > 0 && (
            <tr aria-hidden>
              <td colSpan={columns} style={{ height: padTop, padding: 0, border: 0 }} />
            </tr>
          )}
          {items.map((item) => {
            const d = details[item.index];
            return (
              <Table.Tr
                key={`${d.chatId}-${item.index}`}
                ref={virtualizer.measureElement}
                data-index={item.index}
              >
                <Table.Td style={{ wordBreak: 'break-word' }}>
                  {d.chatName || d.chatId}
                  {sentToNumber(d) && (
                    <Text size="xs" c="dimmed">
                      Sent to {sentToNumber(d)} (the number WhatsApp gave)
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{d.status}</Table.Td>
                <Table.Td>{d.sentAt ? formatDateTime(d.sentAt) : 'N/A'}</Table.Td>
                <Table.Td>
                  <Text size="xs" c="red.8">
                    {d.error ?? ''}
                  </Text>
                </Table.Td>
                {showAccount && <Table.Td>{accountNumber(d.sessionId)}</Table.Td>}
              </Table.Tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden>
              <td colSpan={columns} style={{ height: padBottom, padding: 0, border: 0 }} />
            </tr>
          )}
        </Table.Tbody>
      </Table>
    </ScrollArea.Autosize>
  );
}

/** 'Job Details: {id}' with the fields of spec section 2 and the recipients table. */
export function JobDetailsModal(props: {
  jobId: string | null;
  onClose: () => void;
  onRetry: (job: JobWithDetails) => void;
  retrying: boolean;
  error: string | null;
}) {
  const details = useJobDetails(props.jobId);
  const job = details.data?.job;
  return (
    <AppModal
      opened={!!props.jobId}
      onClose={props.onClose}
      title={`Job Details: ${props.jobId ?? ''}`}
      size="xl"
      styles={{ title: { wordBreak: 'break-all', fontWeight: 600 } }}
    >
      {details.isLoading && <Loader size="sm" aria-label="Loading job details" />}
      {details.error && (
        <Alert color="red" variant="light">
          {errorText(details.error, 'Failed to fetch job details', 'Error fetching job details')}
        </Alert>
      )}
      {job && (
        <Stack gap="md">
          <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
            <Field label="Status">
              <Badge color={JOB_STATUS_COLOR[job.status] ?? 'gray'}>{job.status}</Badge>
            </Field>
            <Field label="Message Type">{job.messageType}</Field>
            <Field label={job.audience === 'groups' ? 'Total Groups' : 'Total Recipients'}>
              {formatNumber(job.progress.total)}
            </Field>
            <Field label="Success">{formatNumber(job.results.success)}</Field>
            <Field label="Failed">{formatNumber(job.results.failed)}</Field>
            <Field label="Elapsed Time">{Math.round(job.elapsedTimeMs / 1000)} seconds</Field>
            {job.isScheduled && <Field label="Scheduled Time">{formatDateTime(job.scheduledTime)}</Field>}
          </SimpleGrid>
          <Field label="Message Content">
            <MessageContent job={job} />
          </Field>
          {job.detailsTotal > job.details.length && (
            <Text size="xs" c="dimmed">
              Showing the first {formatNumber(job.details.length)} of {formatNumber(job.detailsTotal)}{' '}
              recipients.
            </Text>
          )}
          <RecipientsTable
            details={job.details}
            groups={job.audience === 'groups'}
            showAccount={(job.sessionIds?.length ?? 0) > 1}
          />
          {props.error && (
            <Alert color="red" variant="light" role="alert">
              {props.error}
            </Alert>
          )}
          {canRetry(job) && (
            <Group justify="flex-end">
              <Button color="orange" loading={props.retrying} onClick={() => props.onRetry(job)}>
                Retry Failed
              </Button>
            </Group>
          )}
        </Stack>
      )}
    </AppModal>
  );
}
