import { Stack, Text } from '@mantine/core';
import type { ContactListSummary } from '@wa/contract';
import { AppModal } from '../../components/AppModal.tsx';
import { DangerActions } from '../../components/DangerActions.tsx';
import { formatNumber } from '../../lib/format.ts';

/** Asks before a contact list and its contacts are deleted (the opt-out list stays). */
export function DeleteListModal(props: {
  list: ContactListSummary | null;
  onCancel: () => void;
  onConfirm: () => void;
  busy: boolean;
  error: string | null;
}) {
  const l = props.list;
  return (
    <AppModal opened={l !== null} onClose={props.onCancel} title="Delete contact list">
      {l && (
        <Stack gap="sm">
          <Text>
            Delete '{l.name}' and its {formatNumber(l.count)} contact{l.count === 1 ? '' : 's'}?
          </Text>
          <DangerActions label="Delete" {...props} />
        </Stack>
      )}
    </AppModal>
  );
}
