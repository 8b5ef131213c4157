import { Button, Group, Text } from '@mantine/core';
import { ErrorAlert } from './ErrorAlert.tsx';

/**
 * The foot of a dialog that asks before something is removed: 'This action cannot be undone.'
 * (unless `undoable`), why the last try failed, then Cancel and the red button named `label`.
 */
export function DangerActions(props: {
  label: string;
  busy: boolean;
  error: string | null | undefined;
  onCancel: () => void;
  onConfirm: () => void;
  undoable?: boolean;
}) {
  return (
    <>
      {!props.undoable && (
        <Text size="sm" c="red.8">
          This action cannot be undone.
        </Text>
      )}
      <ErrorAlert error={props.error} />
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </Button>
        <Button color="red" onClick={props.onConfirm} loading={props.busy}>
          {props.label}
        </Button>
      </Group>
    </>
  );
}
