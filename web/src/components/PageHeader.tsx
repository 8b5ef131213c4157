import { Button, Group, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import type { ReactNode } from 'react';

/** A list page's heading (its one H1) with its buttons on the right, wrapping under it on a phone. */
export function PageHeader(props: { title: ReactNode; children?: ReactNode }) {
  return (
    <Group justify="space-between" wrap="wrap" gap="sm">
      <Title order={1} size="h2">
        {props.title}
      </Title>
      <Group gap="sm">{props.children}</Group>
    </Group>
  );
}

/** Reloads the page's list. */
export function RefreshButton(props: { loading: boolean; onClick: () => void }) {
  return (
    <Button
      variant="default"
      leftSection={<IconRefresh size={16} aria-hidden />}
      loading={props.loading}
      onClick={props.onClick}
    >
      Refresh
    </Button>
  );
}

/** The next page of a list the server pages (Message Jobs, the MIS Report), while there is one. */
export function LoadMoreButton(props: {
  list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };
  label: string;
}) {
  if (!props.list.hasNextPage) return null;
  return (
    <Button
      variant="default"
      onClick={() => void props.list.fetchNextPage()}
      loading={props.list.isFetchingNextPage}
    >
      {props.label}
    </Button>
  );
}
