import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { AppModal } from '../../components/AppModal.tsx';

/** 'Confirm Delete' (spec section 2). */
export function ConfirmDeleteModal(props: {
  jobId: string | null;
  onCancel: () => void;
  onConfirm: () => void;
  busy: boolean;
  error: string | null;
  /** The job is a repeating job's next occurrence: deleting it ends the series. */
  endsSeries?: boolean;
}) {
  return (
    <AppModal opened={!!props.jobId} onClose={props.onCancel} title="Confirm Delete">
      <Stack gap="sm">
        <Text>Are you sure you want to delete this job?</Text>
        <Code block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {props.jobId}
        </Code>
        {props.endsSeries && (
          <Text size="sm">This is the next occurrence of a repeating job: deleting it ends the series.</Text>
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
