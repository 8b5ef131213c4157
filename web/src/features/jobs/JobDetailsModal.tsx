import { Alert, Button, Group, Loader, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import {
  formatRupees,
  isRetryableError,
  type JobDetail,
  type JobWithDetails,
  jidUser,
  parsePoll,
  parseStoredTemplate,
  phoneOfJid,
  templateText,
  viewedByText,
} from '@wa/contract';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { AppModal } from '../../components/AppModal.tsx';
import { FollowUpModal } from '../../components/follow-up/FollowUpModal.tsx';
import { ScheduledFollowUps } from '../../components/follow-up/ScheduledFollowUps.tsx';
import { JobStatusBadge } from '../../components/JobStatusBadge.tsx';
import { ListTable, SMALL_SCREEN } from '../../components/ListTable.tsx';
import { errorText } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useJobDetails } from './api/get-job-details.ts';
import { canRetry, deliveryFigures, recipientStage, undeliveredText } from './jobs-view.ts';

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
  if (job.messageType === 'template') {
    // A Cloud API template send: its name, language and values, and Meta's charge so far.
    const t = parseStoredTemplate(job.messageContent);
    return (
      <Stack gap={2}>
        <Text size="sm" fw={500}>
          Template {t?.name ?? ''} ({t?.language ?? ''})
        </Text>
        {t && (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {templateText(t)}
          </Text>
        )}
        {job.costUnits != null && (
          <Text size="xs" c="dimmed">
            Meta's charge for the delivered messages: {formatRupees(job.costUnits)}
          </Text>
        )}
      </Stack>
    );
  }
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

/**
 * The number a message went to when WhatsApp named another number for it (Brazil's 9th digit…);
 * null when the same, or when it went to the person's LID (no number to show, and never a raw id).
 */
export function sentToNumber(d: Pick<JobDetail, 'chatId' | 'sentTo'>): string | null {
  const to = phoneOfJid(d.sentTo);
  if (!to) return null;
  return to === jidUser(d.chatId).replace(/\D/g, '') ? null : to;
}

/** The account that sent a message, as its phone number (a sessionId is `<phone>_<suffix>`). */
export const accountNumber = (accountId: string | undefined) => (accountId ? accountId.split('_')[0]! : '');

/** The contact's reply: its time and text. */
function Reply({ d }: { d: JobDetail }) {
  if (!d.repliedAt) return null;
  return (
    <>
      <Text size="xs" c="dimmed">
        {formatDateTime(d.repliedAt)}
      </Text>
      <Text size="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {d.replyText}
      </Text>
    </>
  );
}

/** Below 768 px: the receipts' times and the reply as lines under the send time. */
function ReceiptLines({ d }: { d: JobDetail }) {
  return (
    <>
      {d.deliveredAt && (
        <Text size="xs" c="dimmed">
          Delivered {formatDateTime(d.deliveredAt)}
        </Text>
      )}
      {d.readAt && (
        <Text size="xs" c="dimmed">
          Read {formatDateTime(d.readAt)}
        </Text>
      )}
      {d.repliedAt && (
        <Text size="xs" c="dimmed">
          Replied: {d.replyText}
        </Text>
      )}
    </>
  );
}

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
  // Wide: a column for each receipt time and the reply; below 768 px they are lines of Sent At.
  // Below 768 px the cells wrap inside the full-screen modal: number, status and error in view
  // without sideways scrolling.
  const small = useMediaQuery(SMALL_SCREEN, false, { getInitialValueInEffect: false });
  const columns = [
    { header: groups ? 'Group' : 'Phone Number' },
    { header: 'Status' },
    { header: 'Sent At' },
    ...(small ? [] : [{ header: 'Delivered At' }, { header: 'Read At' }, { header: 'Reply' }]),
    { header: 'Error' },
    ...(showAccount ? [{ header: 'Sent From' }] : []),
  ];
  return (
    <ListTable
      label="Recipients"
      rows={details}
      rowKey={(d, index) => `${d.chatId}-${index}`}
      columns={columns}
      empty="No recipients"
      virtual={{ estimateRowHeight: ROW, maxHeight: '360px', fit: true, overscan: 10 }}
      tableProps={{
        striped: false,
        highlightOnHover: false,
        miw: small ? undefined : 860,
        verticalSpacing: 6,
        horizontalSpacing: small ? 4 : 'xs',
        fz: small ? 'xs' : undefined,
      }}
      cells={(d) => (
        <>
          <Table.Td style={{ wordBreak: 'break-word' }}>
            {d.chatName || d.chatId}
            {sentToNumber(d) && (
              <Text size="xs" c="dimmed">
                Sent to {sentToNumber(d)} (the number WhatsApp gave)
              </Text>
            )}
          </Table.Td>
          <Table.Td>{recipientStage(d)}</Table.Td>
          <Table.Td>
            {d.sentAt ? formatDateTime(d.sentAt) : 'N/A'}
            {small && <ReceiptLines d={d} />}
          </Table.Td>
          {!small && <Table.Td>{formatDateTime(d.deliveredAt)}</Table.Td>}
          {!small && <Table.Td>{formatDateTime(d.readAt)}</Table.Td>}
          {!small && (
            <Table.Td>
              <Reply d={d} />
            </Table.Td>
          )}
          <Table.Td>
            <Text size="xs" c="red.8">
              {d.error ?? undeliveredText(d) ?? ''}
              {d.error && !isRetryableError(d.error) ? ' (a retry cannot fix this)' : ''}
            </Text>
          </Table.Td>
          {showAccount && <Table.Td>{accountNumber(d.sessionId)}</Table.Td>}
        </>
      )}
    />
  );
}

/** 'Job Details: {id}' with the fields of the specification and the recipients table. */
export function JobDetailsModal(props: {
  jobId: string | null;
  onClose: () => void;
  onRetry: (job: JobWithDetails) => void;
  /** Failures of the job a retry may fix (undefined: not known yet). */
  retryable: number | undefined;
  retrying: boolean;
  error: string | null;
}) {
  const details = useJobDetails(props.jobId);
  const job = details.data?.job;
  const [followingUp, setFollowingUp] = useState(false);
  return (
    <>
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
                <JobStatusBadge job={job} variant="filled" />
              </Field>
              <Field label="Message Type">{job.messageType}</Field>
              <Field label={job.audience === 'groups' ? 'Total Groups' : 'Total Recipients'}>
                {formatNumber(job.progress.total)}
              </Field>
              <Field label="Success">{formatNumber(job.results.success)}</Field>
              <Field label="Failed">{formatNumber(job.results.failed)}</Field>
              {job.messageType === 'status' && (
                <Field label="Views">{viewedByText(job.delivery.read, job.results.success)}</Field>
              )}
              {(job.messageType === 'status' ? [] : deliveryFigures(job)).map((f) => (
                <Field key={f.label} label={f.label}>
                  {formatNumber(f.count)} ({f.rate})
                </Field>
              ))}
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
            {job.audience === 'individuals' && job.messageType !== 'status' && (
              <ScheduledFollowUps jobId={job.id} />
            )}
            {props.error && (
              <Alert color="red" variant="light" role="alert">
                {props.error}
              </Alert>
            )}
            <Group justify="flex-end">
              {/* A group job has no one-to-one segments: no follow-up for it. */}
              {job.audience === 'individuals' && job.messageType !== 'status' && (
                <>
                  {/* The conversations of the people who answered this job, in the Inbox. */}
                  <Button variant="light" component={Link} to={`/inbox?jobId=${encodeURIComponent(job.id)}`}>
                    Replies
                  </Button>
                  <Button variant="light" onClick={() => setFollowingUp(true)}>
                    Follow up
                  </Button>
                </>
              )}
              {canRetry(job, props.retryable) && (
                <Button color="orange" loading={props.retrying} onClick={() => props.onRetry(job)}>
                  Retry Failed
                </Button>
              )}
            </Group>
          </Stack>
        )}
      </AppModal>
      {followingUp && job && <FollowUpModal job={job} onClose={() => setFollowingUp(false)} />}
    </>
  );
}
