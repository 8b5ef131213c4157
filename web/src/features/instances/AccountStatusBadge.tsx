import { Badge } from '@mantine/core';
import { ACCOUNT_STATUS_COLOR } from '../../lib/theme.ts';

/** CONNECTED, DISCONNECTED, PENDING, or unknown for any other value. */
export function AccountStatusBadge({ status }: { status: string }) {
  const known = status in ACCOUNT_STATUS_COLOR;
  return (
    <Badge color={known ? ACCOUNT_STATUS_COLOR[status] : 'gray'} variant={known ? 'filled' : 'outline'}>
      {known ? status : 'unknown'}
    </Badge>
  );
}
