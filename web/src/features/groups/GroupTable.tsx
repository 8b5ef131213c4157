import { ActionIcon, Anchor, Badge, Group, Image, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronUp } from '@tabler/icons-react';
import type { GroupChat } from '@wa/contract';
import { useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
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

const ACTIVE = (
  // The whole word: a badge cuts its label to the cell ('AC…' at 1280 px).
  <Badge color="green" variant="light" styles={{ label: { overflow: 'visible' } }}>
    Active
  </Badge>
);

/**
 * The Group List table: the ten columns of the specification, in the spec's order, fitting its box
 * at 1280 px (headers and dates wrap); below 768 px each group is a card. Only the rows in view
 * are drawn.
 */
export function GroupTable(props: { groups: readonly GroupChat[]; onOpen: (group: GroupChat) => void }) {
  // One expanded admin cell at a time, keyed by group id; clicking its caret again collapses it.
  const [adminsOpenFor, setAdminsOpenFor] = useState<string | null>(null);
  const [qrFor, setQrFor] = useState<GroupChat | null>(null);

  const name = (g: GroupChat) => (
    <UnstyledButton
      onClick={() => props.onOpen(g)}
      c="var(--mantine-primary-color-light-color)"
      fw={500}
      miw={140}
      maw={260}
      style={{ display: 'block', textDecoration: 'underline', overflowWrap: 'anywhere' }}
    >
      {g.groupName}
    </UnstyledButton>
  );

  const admins = (g: GroupChat) => {
    const [firstAdmin, ...otherAdmins] = g.adminPhone;
    const adminsOpen = adminsOpenFor === g.groupId;
    if (firstAdmin === undefined) return NOT_AVAILABLE;
    return (
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
    );
  };

  const link = (g: GroupChat) =>
    g.groupLink ? (
      <Anchor
        href={g.groupLink}
        target="_blank"
        rel="noopener noreferrer"
        size="sm"
        maw={150}
        style={{ display: 'block', wordBreak: 'break-all' }}
      >
        {g.groupLink}
      </Anchor>
    ) : (
      NOT_AN_ADMIN
    );

  const qr = (g: GroupChat) =>
    g.groupLink ? (
      <UnstyledButton onClick={() => setQrFor(g)} aria-label={`Enlarge the QR code of ${g.groupName}`}>
        <Image src={qrDataUrl(g.groupLink)} alt={`QR code of ${g.groupName}`} w={56} h={56} />
      </UnstyledButton>
    ) : (
      NOT_AN_ADMIN
    );

  return (
    <>
      <ListTable
        label="Group chats"
        empty="No group chats found"
        rows={props.groups}
        rowKey={(g) => g.groupId}
        virtual={{ estimateRowHeight: 97, fit: true }}
        columns={COLUMNS.map((header) => ({ header }))}
        cells={(g, index) => (
          <>
            <Table.Td>{index + 1}</Table.Td>
            <Table.Td miw={150}>{name(g)}</Table.Td>
            <Table.Td>{admins(g)}</Table.Td>
            <Table.Td>{link(g)}</Table.Td>
            <Table.Td>{qr(g)}</Table.Td>
            <Table.Td>{formatNumber(g.participantCount)}</Table.Td>
            <Table.Td>{formatNumber(g.adminCount)}</Table.Td>
            <Table.Td miw={80}>{ACTIVE}</Table.Td>
            <Table.Td miw={90}>{groupDate(g.creationDate)}</Table.Td>
            <Table.Td miw={90}>{groupDate(g.updatedDate)}</Table.Td>
          </>
        )}
        card={(g, index) => (
          <RowCard
            title={
              <Group gap={6} wrap="nowrap" align="flex-start">
                <span>{index + 1}.</span>
                {name(g)}
              </Group>
            }
            fields={[
              { label: 'Admin Numbers', value: admins(g) },
              { label: 'Group Link', value: link(g) },
              { label: 'Group QR Code', value: qr(g) },
              { label: 'Members Count', value: formatNumber(g.participantCount) },
              { label: 'Admin Count', value: formatNumber(g.adminCount) },
              { label: 'Status', value: ACTIVE },
              { label: 'Created Date & Time', value: groupDate(g.creationDate) },
              { label: 'Updated Date & Time', value: groupDate(g.updatedDate) },
            ]}
          />
        )}
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
