import { Alert } from '@mantine/core';
import { IconHourglass } from '@tabler/icons-react';

/** What the account's policy will do to this send, before it is made. */
export function SendForecast({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <Alert
      color="yellow"
      variant="light"
      role="status"
      aria-label="What the account will send"
      icon={<IconHourglass size={16} aria-hidden />}
      p="xs"
    >
      {text}
    </Alert>
  );
}
