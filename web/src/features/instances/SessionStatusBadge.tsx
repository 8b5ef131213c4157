import { Badge } from '@mantine/core';
import { SESSION_STATUS_COLOR } from '../../lib/theme.ts';

/** CONNECTED, DISCONNECTED, PENDING, or unknown for any other value. */
export function SessionStatusBadge({ status }: { status: string }) {
  const known = status in SESSION_STATUS_COLOR;
  return (
    <Badge color={known ? SESSION_STATUS_COLOR[status] : 'gray'} variant={known ? 'filled' : 'outline'}>
      {known ? status : 'unknown'}
    </Badge>
  );
}
