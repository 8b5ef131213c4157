import { ActionIcon, Anchor, Badge, Group, Image, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronUp } from '@tabler/icons-react';
import type { GroupChat } from '@wa/contract';
import { useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { VirtualTable } from '../../components/VirtualTable.tsx';
import { formatNumber } from '../../lib/format.ts';
import { qrDataUrl } from '../../lib/qr.ts';
import { groupDate, NOT_AN_ADMIN, NOT_AVAILABLE } from './group-rows.ts';

const COLUMNS = [
  '#',
  'Group Name',
  'Admin Numbers',
  'Group Link',
  'Group QR Code',
  'Members Count',
  'Admin Count',
  'Status',
  'Created Date & Time',
  'Updated Date & Time',
];

/** The Group List table: the ten columns of spec section 2, only the rows in view drawn. */
export function GroupTable(props: { groups: readonly GroupChat[]; onOpen: (group: GroupChat) => void }) {
  // One expanded admin cell at a time, keyed by group id; clicking its caret again collapses it.
  const [adminsOpenFor, setAdminsOpenFor] = useState<string | null>(null);
  const [qrFor, setQrFor] = useState<GroupChat | null>(null);

  return (
    <>
      <VirtualTable
        label="Group chats"
        items={props.groups}
        getKey={(g) => g.groupId}
        estimateRowHeight={97}
        columnCount={COLUMNS.length}
        header={COLUMNS.map((c) => (
          <Table.Th key={c} style={{ whiteSpace: 'nowrap' }}>
            {c}
          </Table.Th>
        ))}
        renderRow={(g, index, rowProps) => {
          const [firstAdmin, ...otherAdmins] = g.adminPhone;
          const adminsOpen = adminsOpenFor === g.groupId;
          return (
            <Table.Tr {...rowProps}>
              <Table.Td>{index + 1}</Table.Td>
              <Table.Td>
                <UnstyledButton
                  onClick={() => props.onOpen(g)}
                  c="var(--mantine-primary-color-light-color)"
                  fw={500}
                  maw={240}
                  style={{ display: 'block', textDecoration: 'underline', wordBreak: 'break-word' }}
                >
                  {g.groupName}
                </UnstyledButton>
              </Table.Td>
              <Table.Td>
                {firstAdmin === undefined ? (
                  NOT_AVAILABLE
                ) : (
                  <Stack gap={2}>
                    <Group gap={4} wrap="nowrap">
                      <Text size="sm">{firstAdmin}</Text>
                      {otherAdmins.length > 0 && (
                        <ActionIcon
                          variant="subtle"
                          size="sm"
                          aria-expanded={adminsOpen}
                          aria-label={
                            adminsOpen
                              ? `Hide other admins of ${g.groupName}`
                              : `Show ${otherAdmins.length} more ${otherAdmins.length === 1 ? 'admin' : 'admins'} of ${g.groupName}`
                          }
                          onClick={() => setAdminsOpenFor(adminsOpen ? null : g.groupId)}
                        >
                          {adminsOpen ? <IconChevronUp size={16} /> : <IconChevronDown size={16} />}
                        </ActionIcon>
                      )}
                    </Group>
                    {adminsOpen &&
                      otherAdmins.map((a) => (
                        <Text size="sm" key={a}>
                          {a}
                        </Text>
                      ))}
                  </Stack>
                )}
              </Table.Td>
              <Table.Td>
                {g.groupLink ? (
                  <Anchor
                    href={g.groupLink}
                    target="_blank"
                    rel="noopener noreferrer"
                    size="sm"
                    maw={220}
                    style={{ display: 'block', wordBreak: 'break-all' }}
                  >
                    {g.groupLink}
                  </Anchor>
                ) : (
                  NOT_AN_ADMIN
                )}
              </Table.Td>
              <Table.Td>
                {g.groupLink ? (
                  <UnstyledButton
                    onClick={() => setQrFor(g)}
                    aria-label={`Enlarge the QR code of ${g.groupName}`}
                  >
                    <Image src={qrDataUrl(g.groupLink)} alt={`QR code of ${g.groupName}`} w={72} h={72} />
                  </UnstyledButton>
                ) : (
                  NOT_AN_ADMIN
                )}
              </Table.Td>
              <Table.Td>{formatNumber(g.participantCount)}</Table.Td>
              <Table.Td>{formatNumber(g.adminCount)}</Table.Td>
              <Table.Td>
                <Badge color="green" variant="light">
                  Active
                </Badge>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{groupDate(g.creationDate)}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{groupDate(g.updatedDate)}</Table.Td>
            </Table.Tr>
          );
        }}
      />
      <AppModal opened={qrFor !== null} onClose={() => setQrFor(null)} title={qrFor?.groupName}>
        {qrFor?.groupLink && (
          <Stack align="center">
            <Image src={qrDataUrl(qrFor.groupLink)} alt={`QR code of ${qrFor.groupName}`} w={200} h={200} />
            <Text size="sm" style={{ wordBreak: 'break-all' }}>
              {qrFor.groupLink}
            </Text>
            <Anchor href={qrDataUrl(qrFor.groupLink)} download="WhatsApp_group_qr.svg">
              Download QR code
            </Anchor>
          </Stack>
        )}
      </AppModal>
    </>
  );
}
