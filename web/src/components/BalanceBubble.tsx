import { Badge } from '@mantine/core';
import { useBalance } from '../features/auth/api/get-user-details.ts';
import { formatNumber } from '../lib/format.ts';

/** The balance bubble of the compose and jobs headers, in en-IN. */
export function BalanceBubble() {
  const balance = useBalance();
  return (
    <Badge size="lg" variant="light" color="teal" aria-label="Account Balance">
      Balance: {formatNumber(balance)}
    </Badge>
  );
}
