import { Alert, Button, Card, Center, Group, Loader, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconFileTypeCsv, IconPrinter, IconSearch } from '@tabler/icons-react';
import { CLOUD_TEXTS, type GroupChat } from '@wa/contract';
import { type ReactNode, useMemo, useState } from 'react';
import { NoAccountAlert } from '../../components/FirstRunNotices.tsx';
import { CurrentAccountPicker } from '../../components/PhoneNumberPicker.tsx';
import { useCurrentAccount } from '../../components/useCurrentAccount.ts';
import { ApiError } from '../../lib/api.ts';
import { exportCsv, printTable } from '../../lib/export.ts';
import { formatNumber } from '../../lib/format.ts';
import { useGroupChats } from './api/get-group-chats.ts';
import { GroupDetails } from './GroupDetails.tsx';
import { GroupTable } from './GroupTable.tsx';
import {
  filterGroups,
  GROUPS_CSV_FILE,
  GROUPS_EXPORT_HEADERS,
  groupExportRows,
  SEARCH_MIN_LENGTH,
  searchTooShort,
} from './group-rows.ts';

const groupsError = (err: Error) =>
  err instanceof ApiError
    ? (err.serverMessage ?? 'Failed to fetch group chats')
    : `Error fetching group chats: ${err.message}`;

const Loading = () => (
  <Center py="xl">
    <Group gap="sm">
      <Loader size="sm" />
      <Text>Loading group chats...</Text>
    </Group>
  </Center>
);

/** /groups: every group of the chosen account, searchable, exportable, with its details. */
export default function GroupsPage() {
  const current = useCurrentAccount('groups');
  const chats = useGroupChats(current.accountId);
  const [search, setSearch] = useState('');
  const [openId, setOpenId] = useState<string | null>(null);

  const all: readonly GroupChat[] = chats.data?.groups ?? [];
  const shown = useMemo(() => filterGroups(all, search), [all, search]);
  const open = openId ? (all.find((g) => g.groupId === openId) ?? null) : null;
  const filtering = search.trim().length >= SEARCH_MIN_LENGTH;

  let body: ReactNode;
  if (current.loading) body = <Loading />;
  else if (current.error)
    body = (
      <Alert color="red" title="Error">
        {`Error fetching sessions: ${current.error.message}`}
      </Alert>
    );
  else if (!current.accountId)
    body = <NoAccountAlert why={current.unable > 0 ? CLOUD_TEXTS.groupsLinkedOnly : undefined} />;
  else
    body = (
      <Card withBorder padding="sm" radius="md">
        <Stack gap="sm">
          <Group justify="space-between" align="flex-start" gap="sm">
            <Group gap="xs">
              <Button
                variant="light"
                leftSection={<IconFileTypeCsv size={18} />}
                onClick={() => exportCsv(GROUPS_CSV_FILE, GROUPS_EXPORT_HEADERS, groupExportRows(shown))}
              >
                CSV
              </Button>
              <Button
                variant="light"
                leftSection={<IconPrinter size={18} />}
                onClick={() => printTable('WhatsApp Groups', GROUPS_EXPORT_HEADERS, groupExportRows(shown))}
              >
                PDF/Print
              </Button>
            </Group>
            <TextInput
              aria-label="Search groups"
              placeholder="Search by group name"
              leftSection={<IconSearch size={16} />}
              value={search}
              onChange={(e) => setSearch(e.currentTarget.value)}
              description={searchTooShort(search) ? 'Enter at least 3 characters' : undefined}
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              w={{ base: '100%', xs: 280 }}
            />
          </Group>
          {chats.isLoading ? (
            <Loading />
          ) : chats.error ? (
            <Alert color="red">{groupsError(chats.error)}</Alert>
          ) : all.length === 0 ? (
            <Text ta="center" py="lg" c="dimmed">
              No group chats found
            </Text>
          ) : shown.length === 0 ? (
            <Text ta="center" py="lg" c="dimmed">
              No matching groups found
            </Text>
          ) : (
            <>
              <Text size="sm" c="dimmed" aria-live="polite">
                {filtering
                  ? `${formatNumber(shown.length)} of ${formatNumber(all.length)} groups`
                  : `${formatNumber(all.length)} groups`}
              </Text>
              <GroupTable groups={shown} onOpen={(g) => setOpenId(g.groupId)} />
            </>
          )}
        </Stack>
      </Card>
    );

  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        Group List
      </Title>
      <CurrentAccountPicker current={current} why={CLOUD_TEXTS.groupsLinkedOnly} />
      {body}
      <GroupDetails group={open} accountId={current.accountId} onClose={() => setOpenId(null)} />
    </Stack>
  );
}
