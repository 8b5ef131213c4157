import { Button, Group, Stack, Text } from '@mantine/core';
import type { ContactListSummary } from '@wa/contract';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
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
          <Text size="sm" c="red.8">
            This action cannot be undone.
          </Text>
          <ErrorAlert error={props.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onCancel} disabled={props.busy}>
              Cancel
            </Button>
            <Button color="red" onClick={props.onConfirm} loading={props.busy}>
              Delete
            </Button>
          </Group>
        </Stack>
      )}
    </AppModal>
  );
}
