import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { AppModal } from '../../components/AppModal.tsx';
import { formatNumber } from '../../lib/format.ts';

/** 'Confirm Delete'. */
export function ConfirmDeleteModal(props: {
  jobId: string | null;
  onCancel: () => void;
  onConfirm: () => void;
  busy: boolean;
  error: string | null;
  /** The job is a repeating job's next occurrence: deleting it ends the series. */
  endsSeries?: boolean;
  /** A line of the job's message and, for a scheduled job, when it is to be sent. */
  preview?: string;
  scheduledFor?: string | null;
  /** Recipients not sent yet: each holds the credit reserved at acceptance. */
  unsent?: number;
}) {
  return (
    <AppModal opened={!!props.jobId} onClose={props.onCancel} title="Confirm Delete">
      <Stack gap="sm">
        <Text>Are you sure you want to delete this job?</Text>
        <Code block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {props.jobId}
        </Code>
        {(props.preview || props.scheduledFor) && (
          <dl style={{ margin: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', gap: '4px 12px' }}>
            {props.scheduledFor && (
              <>
                <Text component="dt" size="sm" fw={600}>
                  Scheduled for
                </Text>
                <Text component="dd" size="sm" m={0}>
                  {props.scheduledFor}
                </Text>
              </>
            )}
            {props.preview && (
              <>
                <Text component="dt" size="sm" fw={600}>
                  Message
                </Text>
                <Text component="dd" size="sm" m={0} lineClamp={3} style={{ overflowWrap: 'anywhere' }}>
                  {props.preview}
                </Text>
              </>
            )}
          </dl>
        )}
        {props.endsSeries && (
          <Text size="sm">This is the next occurrence of a repeating job: deleting it ends the series.</Text>
        )}
        {!!props.unsent && (
          <Text size="sm">
            {props.unsent === 1
              ? 'Its 1 unsent message holds 1 credit: it is refunded.'
              : `Its ${formatNumber(props.unsent)} unsent messages hold ${formatNumber(props.unsent)} credits: they are refunded.`}
          </Text>
        )}
        <Text size="sm" c="red.8">
          This action cannot be undone.
        </Text>
        {props.error && (
          <Alert color="red" variant="light" role="alert">
            {props.error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onCancel} disabled={props.busy}>
            Cancel
          </Button>
          <Button color="red" onClick={props.onConfirm} loading={props.busy}>
            Delete
          </Button>
        </Group>
      </Stack>
    </AppModal>
  );
}
