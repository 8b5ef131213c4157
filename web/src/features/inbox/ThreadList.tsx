import {
  Alert,
  Anchor,
  Badge,
  Button,
  Checkbox,
  CloseButton,
  Group,
  Paper,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import type { Account, InboxThread } from '@wa/contract';
import { useMemo, useState } from 'react';
import { shortJobId } from '../../components/JobId.tsx';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { LoadMoreButton } from '../../components/PageHeader.tsx';
import { PhoneNumberPicker } from '../../components/PhoneNumberPicker.tsx';
import { errorText } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useInboxList } from './api/get-inbox.ts';
import {
  emptyInboxText,
  filterOf,
  type InboxParams,
  lastMessageText,
  personName,
  SHOW_OPTIONS,
  windowText,
} from './inbox-view.ts';

const COLUMNS = [
  { header: 'Person', w: '22%' },
  { header: 'Last message', w: '36%' },
  { header: 'Account', w: '24%' },
  { header: 'State', w: '18%' },
] as const;

/** The thread's badges: its unread messages, open or done, opted out. */
function StateBadges(props: { thread: InboxThread }) {
  const t = props.thread;
  return (
    <Group gap={4} wrap="wrap">
      {t.unread > 0 && (
        <Badge color="teal" variant="filled">
          {formatNumber(t.unread)} unread
        </Badge>
      )}
      <Badge color={t.state === 'done' ? 'gray' : 'blue'} variant="light">
        {t.state === 'done' ? 'Done' : 'Open'}
      </Badge>
      {t.optedOut && (
        <Badge color="red" variant="light">
          Opted out
        </Badge>
      )}
    </Group>
  );
}

/**
 * The Inbox's threads: one per person, newest first, with the filters (account, job, show, needs a
 * reply, opted out), the search by name or number, and 'Load more' by the server's cursor.
 */
export function ThreadList(props: {
  userId: string | null;
  params: InboxParams;
  /** The user's accounts (empty for an admin reading a managed user's inbox: no account filter). */
  accounts: readonly Account[];
  /** The account of a thread, as the user knows it. */
  accountOf: (accountId: string) => string;
  /** Whether the account answers in free form only inside a person's 24-hour window (a Cloud number). */
  hasWindow: (accountId: string) => boolean;
}) {
  const { params } = props;
  const filter = useMemo(() => filterOf(params.value), [params.value]);
  const list = useInboxList(props.userId, filter);
  const threads = useMemo(() => list.data?.pages.flatMap((p) => p.threads) ?? [], [list.data]);
  const [search, setSearch] = useState(filter.q ?? '');
  const change = (key: string, value: string | null) => params.set({ [key]: value }, true);
  const setQuery = useDebouncedCallback((q: string) => change('q', q.trim() || null), 300);
  const open = (t: InboxThread) => params.set({ person: t.personId }, false);

  const personLink = (t: InboxThread) => (
    <Anchor component="button" type="button" fw={t.unread > 0 ? 700 : 500} onClick={() => open(t)} ta="left">
      {personName(t)}
    </Anchor>
  );
  const last = (t: InboxThread) => (
    <>
      <Text size="sm" lineClamp={2} fw={t.unread > 0 ? 600 : undefined} style={{ overflowWrap: 'anywhere' }}>
        {lastMessageText(t)}
      </Text>
      <Text size="xs" c="dimmed">
        {formatDateTime(t.lastMessage.at)}
      </Text>
    </>
  );
  const account = (t: InboxThread) => (
    <>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {props.accountOf(t.sessionId)}
      </Text>
      {(props.hasWindow(t.sessionId) || t.windowClosesAt) && (
        <Text size="xs" c="dimmed">
          {windowText(t)}
        </Text>
      )}
    </>
  );

  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <TextInput
            label="Search"
            placeholder="A name or a number"
            leftSection={<IconSearch size={16} aria-hidden />}
            value={search}
            onChange={(e) => {
              setSearch(e.currentTarget.value);
              setQuery(e.currentTarget.value);
            }}
            maxLength={200}
            w={{ base: '100%', xs: 260 }}
          />
          <Stack gap={2}>
            <Text size="sm" fw={500} id="inbox-show">
              Show
            </Text>
            <SegmentedControl
              aria-labelledby="inbox-show"
              data={SHOW_OPTIONS.map((o) => ({ value: o.value, label: o.label }))}
              value={filter.state ?? 'all'}
              onChange={(v) => change('state', v !== 'all' ? v : null)}
            />
          </Stack>
          {props.accounts.length > 1 && (
            <PhoneNumberPicker
              label="Account"
              placeholder="All accounts"
              clearable
              accounts={[...props.accounts]}
              value={filter.sessionId ?? null}
              onChange={(v) => change('sessionId', v)}
            />
          )}
        </Group>
        <Group gap="md" wrap="wrap">
          <Checkbox
            label="Needs a reply"
            checked={filter.needsReply === 'true'}
            onChange={(e) => change('needsReply', e.currentTarget.checked ? 'true' : null)}
          />
          <Checkbox
            label="Opted out"
            checked={filter.optedOut === 'true'}
            onChange={(e) => change('optedOut', e.currentTarget.checked ? 'true' : null)}
          />
          {filter.jobId && (
            <Badge
              variant="light"
              size="lg"
              tt="none"
              rightSection={
                <CloseButton
                  size="xs"
                  aria-label="Show replies to every job"
                  onClick={() => change('jobId', null)}
                />
              }
            >
              Replies to job {shortJobId(filter.jobId)}
            </Badge>
          )}
        </Group>
        {list.error && (
          <Alert color="red" variant="light" role="alert">
            {errorText(list.error, 'Failed to fetch conversations', 'Error fetching conversations')}
          </Alert>
        )}
        <ListTable
          label="Conversations"
          columns={COLUMNS}
          rows={threads}
          rowKey={(t) => t.personId}
          loading={list.isLoading}
          loadingLabel="Loading conversations"
          empty={emptyInboxText(filter)}
          bare
          tableProps={{ layout: 'fixed' }}
          cells={(t) => (
            <>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                {personLink(t)}
                {t.name && (
                  <Text size="xs" c="dimmed">
                    {t.phone}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>{last(t)}</Table.Td>
              <Table.Td>{account(t)}</Table.Td>
              <Table.Td>
                <StateBadges thread={t} />
              </Table.Td>
            </>
          )}
          card={(t) => (
            <RowCard
              title={personLink(t)}
              fields={[
                ...(t.name ? [{ label: 'Number', value: t.phone }] : []),
                { label: 'Last message', value: last(t) },
                { label: 'Account', value: account(t) },
                { label: 'State', value: <StateBadges thread={t} /> },
              ]}
            />
          )}
        />
        {threads.length > 0 && (
          <Group justify="space-between" gap="sm">
            <Text size="sm" c="dimmed" aria-live="polite">
              Showing {formatNumber(threads.length)} conversations
            </Text>
            <LoadMoreButton list={list} label="Load more conversations" />
          </Group>
        )}
        {Object.keys(filter).length > 0 && threads.length === 0 && !list.isLoading && (
          <Group>
            <Button variant="default" size="xs" onClick={() => params.clear()}>
              Clear filters
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
