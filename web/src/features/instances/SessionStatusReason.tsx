import { Text } from '@mantine/core';
import type { Session } from '@wa/contract';
import { formatDateTime } from '../../lib/format';

/**
 * The reason a session does not send, in words; red when it stops sending (banned, paused).
 * While WhatsApp restricts the account's new chats (463, quota), says until when and that
 * group sends go on.
 */
export function SessionStatusReason({ session }: { session: Session }) {
  if (!session.statusReason && !session.sendPaused) return null;
  return (
    <Text size="xs" c={session.status === 'CONNECTED' ? 'red' : 'dimmed'} mt={4} maw={260}>
      {session.statusReason}
      {session.sendPaused && (
        <>
          {session.statusReason ? ' ' : ''}
          {session.sendPausedUntil
            ? `One-to-one sends wait until ${formatDateTime(session.sendPausedUntil)}; group sends go on.`
            : 'One-to-one sends wait until WhatsApp lifts the restriction or you resume; group sends go on.'}
        </>
      )}
    </Text>
  );
}
