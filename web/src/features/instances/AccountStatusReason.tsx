import { Text } from '@mantine/core';
import type { Account } from '@wa/contract';
import { formatDateTime } from '../../lib/format';

/**
 * The reason an account does not send, in words; red when it stops sending (banned, paused).
 * While WhatsApp restricts the account's new chats (463, quota), says until when and that
 * group sends go on.
 */
export function AccountStatusReason({ account }: { account: Account }) {
  if (!account.statusReason && !account.sendPaused) return null;
  return (
    <Text size="xs" c={account.status === 'CONNECTED' ? 'red' : 'dimmed'} mt={4} maw={260}>
      {account.statusReason}
      {account.sendPaused && (
        <>
          {account.statusReason ? ' ' : ''}
          {account.sendPausedUntil
            ? `One-to-one sends wait until ${formatDateTime(account.sendPausedUntil)}; group sends go on.`
            : 'One-to-one sends wait until WhatsApp lifts the restriction or you resume; group sends go on.'}
        </>
      )}
    </Text>
  );
}
