import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';

/** 'Confirm Delete' (spec section 2). */
export function ConfirmDeleteModal(props: {
  jobId: string | null;
  onCancel: () => void;
  onConfirm: () => void;
  busy: boolean;
  error: string | null;
}) {
  const small = useMediaQuery('(max-width: 48em)');
  return (
    <Modal opened={!!props.jobId} onClose={props.onCancel} title="Confirm Delete" fullScreen={small} centered>
      <Stack gap="sm">
        <Text>Are you sure you want to delete this job?</Text>
        <Code block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {props.jobId}
        </Code>
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
    </Modal>
  );
}
