import { Alert, type AlertProps } from '@mantine/core';

/** What an action answered: a text in green, or with its colour (red ones are alerts). */
export type Notice = string | { text: string; color: string };

/** An action's answer above a list, until dismissed; nothing when there is none. */
export function NoticeAlert({
  notice,
  onClose,
  ...props
}: { notice: Notice | null; onClose: () => void } & Pick<AlertProps, 'mt' | 'p'>) {
  if (!notice) return null;
  const { text, color } = typeof notice === 'string' ? { text: notice, color: 'green' } : notice;
  return (
    <Alert
      {...props}
      color={color}
      role={color === 'red' ? 'alert' : 'status'}
      withCloseButton
      onClose={onClose}
      closeButtonLabel="Dismiss"
    >
      {text}
    </Alert>
  );
}
