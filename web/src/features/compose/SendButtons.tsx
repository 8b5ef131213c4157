import { Button, Group } from '@mantine/core';
import { IconCalendarTime, IconSend } from '@tabler/icons-react';

/**
 * 'Send Now' ('Sending...' while busy) and 'Schedule Message', disabled with nothing selected and
 * while `waiting` (the user's accounts not read yet: a send then had no account to go from).
 */
export function SendButtons(props: {
  selectedCount: number;
  busy: boolean;
  waiting?: boolean;
  onSendNow: () => void;
  onSchedule: () => void;
}) {
  const none = props.selectedCount === 0 || props.waiting === true;
  return (
    <Group gap="sm" wrap="wrap">
      <Button leftSection={<IconSend size={16} />} disabled={none || props.busy} onClick={props.onSendNow}>
        {props.busy ? 'Sending...' : 'Send Now'}
      </Button>
      <Button
        variant="outline"
        leftSection={<IconCalendarTime size={16} />}
        disabled={none || props.busy}
        onClick={props.onSchedule}
      >
        Schedule Message
      </Button>
    </Group>
  );
}
