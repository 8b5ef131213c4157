import { Badge, Button, Group, Table, Text } from '@mantine/core';
import type { ContactListSummary } from '@wa/contract';
import { ListTable } from '../../components/ListTable.tsx';
import { formatDateTime, formatNumber } from '../../lib/format.ts';

const COLUMNS = [
  { header: 'Name' },
  { header: 'Contacts', align: 'right' as const },
  { header: 'Opted out', align: 'right' as const },
  { header: 'Fields' },
  { header: 'Consent' },
  { header: 'Created' },
  { header: 'Actions' },
];

/** The user's contact lists: name, contacts, opted out, fields, created, and actions. */
export function ContactListsTable(props: {
  lists: readonly ContactListSummary[];
  loading: boolean;
  openId: string | null;
  onOpen: (list: ContactListSummary) => void;
  onExport: (list: ContactListSummary) => void;
  exportingId: string | null;
  onDelete: (list: ContactListSummary) => void;
}) {
  return (
    <ListTable
      label="Contact lists"
      columns={COLUMNS}
      rows={props.lists}
      rowKey={(l) => l.id}
      loading={props.loading}
      loadingLabel="Loading contact lists"
      empty="No contact lists yet. Import a CSV or Excel file to create one."
      minWidth={900}
      highlightOnHover
      cells={(l) => (
        <>
          <Table.Td miw={140}>
            <Text fw={500} style={{ overflowWrap: 'anywhere' }}>
              {l.name}
            </Text>
          </Table.Td>
          <Table.Td ta="right">{formatNumber(l.count)}</Table.Td>
          <Table.Td ta="right">{formatNumber(l.optedOut)}</Table.Td>
          <Table.Td>
            <Group gap={4}>
              {l.fields.length === 0 ? (
                <Text size="sm" c="dimmed">
                  None
                </Text>
              ) : (
                l.fields.map((f) => (
                  <Badge key={f} variant="light" color="gray" tt="none" maw="none">
                    {f}
                  </Badge>
                ))
              )}
            </Group>
          </Table.Td>
          <Table.Td maw={220}>
            {l.consent ? (
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {l.consent.purpose ?? 'Not stated'}
                <Text span size="xs" c="dimmed" display="block">
                  {l.consent.source === 'group'
                    ? `From group ${l.consent.groupName ?? ''}`
                    : `${l.consent.fileName ?? 'Import'}, by ${l.consent.by}, ${formatDateTime(l.consent.at)}`}
                </Text>
              </Text>
            ) : (
              <Text size="sm" c="dimmed">
                Not recorded
              </Text>
            )}
          </Table.Td>
          <Table.Td>{formatDateTime(l.createdAt)}</Table.Td>
          <Table.Td>
            <Group gap="xs" wrap="nowrap">
              <Button
                size="xs"
                variant={props.openId === l.id ? 'filled' : 'light'}
                aria-label={`View contacts of ${l.name}`}
                onClick={() => props.onOpen(l)}
              >
                View
              </Button>
              <Button
                size="xs"
                variant="light"
                // The name begins with the words shown (WCAG 2.5.3, label in name).
                aria-label={`Export CSV: ${l.name}`}
                loading={props.exportingId === l.id}
                onClick={() => props.onExport(l)}
              >
                Export CSV
              </Button>
              <Button
                size="xs"
                variant="light"
                color="red"
                aria-label={`Delete ${l.name}`}
                onClick={() => props.onDelete(l)}
              >
                Delete
              </Button>
            </Group>
          </Table.Td>
        </>
      )}
    />
  );
}
