import { Button, Group, Stack, Text } from '@mantine/core';
import { FOLLOW_UP_SEGMENT_LABELS, type SegmentsResponse } from '@wa/contract';
import { useState } from 'react';
import { useCancelFollowUp, useSegments } from '../../features/jobs/api/follow-up.ts';
import { errorText } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { AppModal } from '../AppModal.tsx';
import { ErrorAlert } from '../ErrorAlert.tsx';

type Scheduled = SegmentsResponse['scheduled'][number];

const STATE_TEXT: Record<Scheduled['state'], string> = {
  waiting: 'waits until',
  created: 'sent as a job',
  failed: 'failed',
  cancelled: 'cancelled, was due',
};

/**
 * The follow-ups scheduled from a job: each with its state and time, and a Cancel button (asked
 * first) while it waits. Nothing has been charged for a waiting follow-up.
 */
export function ScheduledFollowUps(props: { jobId: string }) {
  const scheduled = useSegments(props.jobId).data?.scheduled ?? [];
  const cancel = useCancelFollowUp();
  const [asked, setAsked] = useState<Scheduled | null>(null);
  const [done, setDone] = useState<string | null>(null);
  if (scheduled.length === 0) return null;
  const close = () => {
    setAsked(null);
    cancel.reset();
  };
  const confirm = () =>
    asked &&
    cancel.mutate(
      { jobId: props.jobId, followUpId: asked.id },
      {
        onSuccess: (r) => {
          setDone(r.message);
          setAsked(null);
        },
      },
    );
  return (
    <Stack gap={4} role="group" aria-label="Scheduled follow-ups">
      <Text size="xs" c="dimmed">
        Scheduled follow-ups
      </Text>
      {scheduled.map((f) => (
        <Group key={f.id} gap="xs" wrap="nowrap" justify="space-between">
          <Text size="sm" c={f.state === 'failed' ? 'red.8' : undefined}>
            Follow-up to {FOLLOW_UP_SEGMENT_LABELS[f.segment]}: {STATE_TEXT[f.state]}{' '}
            {formatDateTime(f.dueAt)}
            {f.error ? ` (${f.error})` : ''}
          </Text>
          {f.state === 'waiting' && (
            <Button
              size="compact-sm"
              variant="light"
              color="red"
              aria-label={`Cancel the follow-up due ${formatDateTime(f.dueAt)}`}
              onClick={() => {
                setDone(null);
                setAsked(f);
              }}
            >
              Cancel
            </Button>
          )}
        </Group>
      ))}
      {done && (
        <Text size="sm" c="green.8" role="status">
          {done}
        </Text>
      )}
      <AppModal opened={asked !== null} onClose={close} title="Cancel follow-up">
        {asked && (
          <Stack gap="sm">
            <Text size="sm">
              The follow-up to {FOLLOW_UP_SEGMENT_LABELS[asked.segment]} due {formatDateTime(asked.dueAt)}{' '}
              will not be sent. Nothing has been charged for it.
            </Text>
            <ErrorAlert
              error={cancel.error && errorText(cancel.error, 'Failed to cancel', 'Error cancelling')}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={cancel.isPending}>
                Keep it
              </Button>
              <Button color="red" loading={cancel.isPending} onClick={confirm}>
                Cancel follow-up
              </Button>
            </Group>
          </Stack>
        )}
      </AppModal>
    </Stack>
  );
}
