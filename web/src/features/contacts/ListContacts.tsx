import {
  Badge,
  CloseButton,
  Group,
  Pagination,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import type { ContactListSummary } from '@wa/contract';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ListTable } from '../../components/ListTable.tsx';
import { messageOf } from '../../lib/api.ts';
import { formatNumber } from '../../lib/format.ts';
import { CONTACTS_PAGE_SIZE, useContacts } from './api/get-contacts.ts';

/**
 * One list's contacts, a page of 50 at a time from the server (a list may hold a million), with a
 * search on number, name or tag.
 */
export function ListContacts(props: { list: ContactListSummary; onClose: () => void }) {
  const { list } = props;
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [page, setPage] = useState(1);
  const contacts = useContacts(list.id, (page - 1) * CONTACTS_PAGE_SIZE, debounced);
  const total = contacts.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / CONTACTS_PAGE_SIZE));
  const others = list.fields.filter((f) => f !== 'name');
  const columns = [
    { header: 'Phone Number' },
    { header: 'Name' },
    ...others.map((f) => ({ header: f })),
    { header: 'Tags' },
    { header: 'Status' },
  ];

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={`Contacts of ${list.name}`}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={3} size="h4" style={{ wordBreak: 'break-word' }}>
            {list.name}
          </Title>
          <CloseButton aria-label="Close contacts" onClick={props.onClose} />
        </Group>
        <Group justify="space-between" wrap="wrap" gap="xs" align="flex-end">
          <TextInput
            label="Search contacts"
            placeholder="Number, name or tag"
            leftSection={<IconSearch size={16} aria-hidden />}
            value={search}
            onChange={(e) => {
              setSearch(e.currentTarget.value);
              setPage(1);
            }}
            w={{ base: '100%', xs: 320 }}
          />
          <Text size="sm" c="dimmed" aria-live="polite">
            {contacts.isFetching && !contacts.data
              ? 'Loading…'
              : `${formatNumber(total)} contact${total === 1 ? '' : 's'}${debounced ? ` matching '${debounced}'` : ''}`}
          </Text>
        </Group>
        <ErrorAlert error={contacts.isError ? messageOf(contacts.error) : null} />
        <ListTable
          bare
          label={`Contacts of ${list.name}`}
          columns={columns}
          rows={contacts.data?.contacts ?? []}
          rowKey={(c) => c.phoneNumber}
          loading={contacts.isLoading}
          loadingLabel="Loading contacts"
          empty={debounced ? 'No contacts match the search.' : 'This list has no contacts.'}
          minWidth={480 + others.length * 120}
          cells={(c) => (
            <>
              <Table.Td>{c.display ?? c.phoneNumber}</Table.Td>
              <Table.Td style={{ wordBreak: 'break-word' }}>{c.name}</Table.Td>
              {others.map((f) => (
                <Table.Td key={f} style={{ wordBreak: 'break-word' }}>
                  {c.fields[f] ?? ''}
                </Table.Td>
              ))}
              <Table.Td>
                <Group gap={4}>
                  {c.tags.map((t) => (
                    <Badge key={t} variant="light" tt="none">
                      {t}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td>
                {c.optedOut ? (
                  <Badge color="red" variant="light">
                    Opted out
                  </Badge>
                ) : (
                  <Badge color="green" variant="light">
                    Active
                  </Badge>
                )}
              </Table.Td>
            </>
          )}
        />
        {pages > 1 && (
          <Pagination
            total={pages}
            value={page}
            onChange={setPage}
            size="sm"
            getControlProps={(control) => ({ 'aria-label': `${control} page` })}
            getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
          />
        )}
      </Stack>
    </Paper>
  );
}
