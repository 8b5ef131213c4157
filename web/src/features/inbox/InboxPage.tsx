import { Badge, Group, Stack, Title } from '@mantine/core';
import { useSearchParams } from 'react-router-dom';
import { BalanceBubble } from '../../components/BalanceBubble.tsx';
import { formatNumber } from '../../lib/format.ts';
import { useInboxCounts } from './api/get-inbox-counts.ts';
import { InboxView, withChanges } from './InboxView.tsx';
import type { InboxParams } from './inbox-view.ts';

/**
 * Inbox (/inbox): what people write to the user's accounts, one conversation per person. The
 * filters and the open conversation are the address's parameters (`#/inbox?jobId=…&person=…`),
 * so Job Details links to a job's replies and the browser's back closes a conversation.
 */
export default function InboxPage() {
  const [value, setSearchParams] = useSearchParams();
  const counts = useInboxCounts(true).data;
  const params: InboxParams = {
    value,
    set: (changes, replace) => setSearchParams((v) => withChanges(v, changes), { replace }),
    clear: () => setSearchParams(new URLSearchParams(), { replace: true }),
  };
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="xs">
          <Title order={1} size="h2">
            Inbox
          </Title>
          {counts && counts.unreadThreads > 0 && (
            <Badge size="lg" variant="light" color="teal">
              {formatNumber(counts.unreadThreads)} unread
            </Badge>
          )}
        </Group>
        {/* An answer takes credits, as a send does: the balance is in view, as on the send pages. */}
        <BalanceBubble />
      </Group>
      <InboxView userId={null} params={params} />
    </Stack>
  );
}
