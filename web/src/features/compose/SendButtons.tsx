import { Button, Group } from '@mantine/core';
import { IconCalendarTime, IconSend } from '@tabler/icons-react';

/** 'Send Now' ('Sending...' while busy) and 'Schedule Message', disabled with nothing selected. */
export function SendButtons(props: {
  selectedCount: number;
  busy: boolean;
  onSendNow: () => void;
  onSchedule: () => void;
}) {
  const none = props.selectedCount === 0;
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
