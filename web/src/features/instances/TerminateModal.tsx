import { Stack, Text } from '@mantine/core';
import type { Account } from '@wa/contract';
import { AppModal } from '../../components/AppModal.tsx';
import { DangerActions } from '../../components/DangerActions.tsx';

/** 'Confirm Termination' of one account. */
export function TerminateModal(props: {
  account: Account | null;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <AppModal opened={!!props.account} onClose={props.onCancel} title="Confirm Termination">
      <Stack gap="md">
        <Text>
          Are you sure you want to terminate the session <b>{props.account?.sessionName}</b> (
          {props.account?.phoneNumber})? The WhatsApp account is unlinked and the session is removed.
        </Text>
        <DangerActions label="Terminate" undoable {...props} />
      </Stack>
    </AppModal>
  );
}
