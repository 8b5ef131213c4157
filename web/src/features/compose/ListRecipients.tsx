import { Badge, Paper, Stack, Table, Text, Title } from '@mantine/core';
import type { Contact, ContactListSummary } from '@wa/contract';
import { ListTable } from '../../components/ListTable.tsx';
import { formatNumber } from '../../lib/format.ts';

/** '3 of 4 contacts receive the message; 1 opted out is left out'. */
export function listReceiversText(lists: readonly Pick<ContactListSummary, 'count' | 'optedOut'>[]): string {
  const all = lists.reduce((n, l) => n + l.count, 0);
  const out = lists.reduce((n, l) => n + l.optedOut, 0);
  const head = `${formatNumber(all - out)} of ${formatNumber(all)} contact${all === 1 ? '' : 's'} receive the message`;
  return out === 0 ? head : `${head}; ${formatNumber(out)} opted out ${out === 1 ? 'is' : 'are'} left out`;
}

/**
 * Who a send to contact lists reaches (the table said '0 of 0 selected' while a list
 * was chosen): the count, and the lists' first contacts with the opted-out ones marked.
 */
export function ListRecipients(props: {
  lists: readonly ContactListSummary[];
  contacts: readonly Contact[];
  loading: boolean;
}) {
  const shown = props.contacts.length;
  const all = props.lists.reduce((n, l) => n + l.count, 0);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label="Recipients from contact lists">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Recipients from contact lists
        </Title>
        <Text size="sm" fw={500}>
          {listReceiversText(props.lists)}
        </Text>
        {props.loading ? (
          <Text size="sm" c="dimmed">
            Loading Contacts...
          </Text>
        ) : (
          <ListTable
            label="Contacts of the chosen lists"
            rows={props.contacts}
            rowKey={(c) => c.phoneNumber}
            columns={[{ header: 'Phone Number' }, { header: 'Name' }, { header: 'Receives' }]}
            empty="No contacts in the chosen lists"
            virtual={{ estimateRowHeight: 37, maxHeight: '320px', fit: true }}
            tableProps={{ striped: false, highlightOnHover: false, verticalSpacing: 4, layout: 'fixed' }}
            rowProps={(c) => ({ c: c.optedOut ? 'dimmed' : undefined })}
            cells={(c) => (
              <>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{c.phoneNumber}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{c.name || '—'}</Table.Td>
                <Table.Td>
                  {c.optedOut ? (
                    <Badge color="gray" variant="light" styles={{ label: { overflow: 'visible' } }}>
                      Opted out: left out
                    </Badge>
                  ) : (
                    'Yes'
                  )}
                </Table.Td>
              </>
            )}
          />
        )}
        {shown < all && !props.loading && (
          <Text size="xs" c="dimmed">
            Showing the first {formatNumber(shown)} of {formatNumber(all)}.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
