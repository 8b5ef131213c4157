import { Alert, Button, Group, Text } from '@mantine/core';
import { formatDateTime } from '../../lib/format.ts';

/** Says that the page holds a restored draft, and offers to throw it away. */
export function DraftNote(props: { savedAt: string | null; onDiscard: () => void; onDismiss: () => void }) {
  if (!props.savedAt) return null;
  return (
    <Alert
      color="blue"
      variant="light"
      role="status"
      aria-label="Draft restored"
      withCloseButton
      closeButtonLabel="Keep the draft and hide this note"
      onClose={props.onDismiss}
    >
      <Group gap="sm" wrap="wrap" justify="space-between">
        <Text size="sm" inherit>
          Your unsent draft from {formatDateTime(props.savedAt)} is back: the message, the file and what you
          ticked. Nothing was sent.
        </Text>
        <Button size="xs" variant="default" onClick={props.onDiscard}>
          Discard draft
        </Button>
      </Group>
    </Alert>
  );
}
