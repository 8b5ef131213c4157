import { Stack, Text } from '@mantine/core';
import type { Session } from '@wa/contract';
import { AppModal } from '../../components/AppModal.tsx';
import { DangerActions } from '../../components/DangerActions.tsx';

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
        <DangerActions label="Terminate" undoable {...props} />
      </Stack>
    </AppModal>
  );
}
