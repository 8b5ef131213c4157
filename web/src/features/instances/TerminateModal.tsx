import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { Session } from '@wa/contract';
import { AppModal } from '../../components/AppModal.tsx';

/** 'Confirm Termination' of one session. */
export function TerminateModal(props: {
  session: Session | null;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <AppModal opened={!!props.session} onClose={props.onCancel} title="Confirm Termination">
      <Stack gap="md">
        <Text>
          Are you sure you want to terminate the session <b>{props.session?.sessionName}</b> (
          {props.session?.phoneNumber})? The WhatsApp account is unlinked and the session is removed.
        </Text>
        {props.error && (
          <Alert color="red" role="alert">
            {props.error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onCancel}>
            Cancel
          </Button>
          <Button color="red" loading={props.busy} onClick={props.onConfirm}>
            Terminate
          </Button>
        </Group>
      </Stack>
    </AppModal>
  );
}
