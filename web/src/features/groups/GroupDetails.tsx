import { Badge, Drawer, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { GroupChat } from '@wa/contract';
import { ListTable } from '../../components/ListTable.tsx';
import { formatGroupDate, formatNumber } from '../../lib/format.ts';
import { groupDate, NOT_AVAILABLE, type Role, sortedParticipants } from './group-rows.ts';
import { SaveMembersButton } from './SaveMembersButton.tsx';

const ROLE_COLOR: Record<Role, string> = { 'Super Admin': 'violet', Admin: 'blue', Member: 'gray' };

function Field(props: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {props.label}
      </Text>
      <Text size="sm" style={{ wordBreak: 'break-all' }}>
        {props.value}
      </Text>
    </div>
  );
}

/** The detail panel of one group, opened by its name and closed by ×. */
export function GroupDetails(props: {
  group: GroupChat | null;
  accountId: string | null;
  onClose: () => void;
}) {
  const isMobile = useMediaQuery('(max-width: 48em)');
  const g = props.group;
  return (
    <Drawer
      opened={g !== null}
      onClose={props.onClose}
      position="right"
      size={isMobile ? '100%' : 'lg'}
      title={<Text fw={600}>Group Details</Text>}
      closeButtonProps={{ 'aria-label': 'Close group details' }}
    >
      {g && (
        <Stack>
          <Title order={3} size="h4" style={{ wordBreak: 'break-word' }}>
            {g.groupName}
          </Title>
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
            <Field label="Group ID" value={g.groupId} />
            <Field label="Created" value={groupDate(g.creationDate)} />
            <Field label="Owner" value={g.owner ?? NOT_AVAILABLE} />
            <Field label="Total Participants" value={formatNumber(g.participantCount)} />
            <Field label="Total Admins" value={formatNumber(g.adminCount)} />
          </SimpleGrid>

          <Title order={4} size="h5">
            Last Message
          </Title>
          {g.lastMessage ? (
            <Paper withBorder p="sm">
              <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
                <Field label="Sender" value={g.lastMessage.sender} />
                <Field label="Time" value={formatGroupDate(new Date(g.lastMessage.timestamp * 1000))} />
              </SimpleGrid>
              <Text size="sm" mt="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                {g.lastMessage.body ? g.lastMessage.body : '(Media or non-text message)'}
              </Text>
            </Paper>
          ) : (
            <Text size="sm" c="dimmed">
              No messages yet
            </Text>
          )}

          <Title order={4} size="h5">
            Participants
          </Title>
          {props.accountId && <SaveMembersButton key={g.groupId} accountId={props.accountId} group={g} />}
          <ListTable
            label="Participants"
            bare
            rows={sortedParticipants(g.participants)}
            rowKey={(p) => p.phoneNumber}
            columns={[{ header: 'Phone Number' }, { header: 'Role' }]}
            empty="No participants"
            tableProps={{ verticalSpacing: undefined }}
            cells={(p) => (
              <>
                <Table.Td>{p.phoneNumber}</Table.Td>
                <Table.Td>
                  <Badge color={ROLE_COLOR[p.role]} variant="light">
                    {p.role}
                  </Badge>
                </Table.Td>
              </>
            )}
          />
        </Stack>
      )}
    </Drawer>
  );
}
