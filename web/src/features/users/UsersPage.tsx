import { Alert, Badge, Button, Group, List, Stack, Table, Text } from '@mantine/core';
import { IconCoins, IconEdit, IconListDetails, IconUserPlus } from '@tabler/icons-react';
import type { ManagedUser } from '@wa/contract';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { NoticeAlert } from '../../components/NoticeAlert.tsx';
import { PageHeader, RefreshButton } from '../../components/PageHeader.tsx';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useManagedUsers } from './api/get-users.ts';
import { CreateUserModal } from './CreateUserModal.tsx';
import { CreditsModal } from './CreditsModal.tsx';
import { EditUserModal } from './EditUserModal.tsx';
import { LedgerModal } from './LedgerModal.tsx';

const COLUMNS = [
  { header: 'Name' },
  { header: 'Username' },
  { header: 'Credits', align: 'right' as const },
  { header: 'Bulk messaging' },
  { header: 'Multi-session' },
  { header: 'Status' },
  { header: 'Created' },
  { header: 'Actions' },
];

const flag = (on: boolean) => (
  <Badge variant="light" color={on ? 'teal' : 'gray'}>
    {on ? 'On' : 'Off'}
  </Badge>
);

/** Manage Users (ADMIN): the admin's users, their flags, credits and ledger, reset requests. */
export default function UsersPage() {
  const users = useManagedUsers();
  const list = users.data?.users ?? [];
  const pending = list.filter((u) => u.passwordResetRequestedAt);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ManagedUser | null>(null);
  const [crediting, setCrediting] = useState<ManagedUser | null>(null);
  const [ledgerOf, setLedgerOf] = useState<ManagedUser | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const done = (text: string) => {
    setCreating(false);
    setEditing(null);
    setCrediting(null);
    setNotice(text);
  };

  /** Edit, Credits and Ledger of a user: in the row's last cell, or under its card below 768 px. */
  const actions = (u: ManagedUser) => (
    <>
      <Button
        size="xs"
        variant="light"
        leftSection={<IconEdit size={14} aria-hidden />}
        aria-label={`Edit ${u.username}`}
        onClick={() => {
          setNotice(null);
          setEditing(u);
        }}
      >
        Edit
      </Button>
      <Button
        size="xs"
        variant="light"
        color="orange"
        leftSection={<IconCoins size={14} aria-hidden />}
        aria-label={`Credits of ${u.username}`}
        onClick={() => {
          setNotice(null);
          setCrediting(u);
        }}
      >
        Credits
      </Button>
      <Button
        size="xs"
        variant="light"
        color="gray"
        leftSection={<IconListDetails size={14} aria-hidden />}
        aria-label={`Ledger of ${u.username}`}
        onClick={() => setLedgerOf(u)}
      >
        Ledger
      </Button>
    </>
  );

  return (
    <Stack gap="md">
      <PageHeader title="Manage Users">
        <RefreshButton loading={users.isFetching} onClick={() => void users.refetch()} />
        <Button
          leftSection={<IconUserPlus size={16} aria-hidden />}
          onClick={() => {
            setNotice(null);
            setCreating(true);
          }}
        >
          Add User
        </Button>
      </PageHeader>

      <NoticeAlert notice={notice} onClose={() => setNotice(null)} />
      <ErrorAlert error={users.error?.message} />

      {pending.length > 0 && (
        <Alert
          color="orange"
          title="Password reset requests"
          role="region"
          aria-label="Password reset requests"
        >
          <List size="sm" spacing={4}>
            {pending.map((u) => (
              <List.Item key={u.id}>
                <Group gap="xs" wrap="wrap">
                  <Text size="sm">
                    {u.name} ({u.username}) asked on {formatDateTime(u.passwordResetRequestedAt)}
                  </Text>
                  <Button size="compact-xs" variant="light" color="orange" onClick={() => setEditing(u)}>
                    Set a new password for {u.username}
                  </Button>
                </Group>
              </List.Item>
            ))}
          </List>
        </Alert>
      )}

      <ListTable
        label="Users"
        columns={COLUMNS}
        rows={list}
        rowKey={(u) => u.id}
        loading={users.isLoading}
        loadingLabel="Loading users"
        empty="No users yet. Add one with Add User."
        minWidth={900}
        highlightOnHover
        cells={(u) => (
          <>
            <Table.Td>
              {u.name}
              {u.role === 'ADMIN' && (
                <Badge ml="xs" size="xs" variant="outline">
                  ADMIN
                </Badge>
              )}
            </Table.Td>
            <Table.Td>{u.username}</Table.Td>
            <Table.Td ta="right">{formatNumber(u.credits)}</Table.Td>
            <Table.Td>{flag(u.is_bulk_messaging_enabled === 1)}</Table.Td>
            <Table.Td>{flag(u.is_multisession_supported === 1)}</Table.Td>
            <Table.Td>
              <Badge color={u.disabled ? 'red' : 'green'} variant="light">
                {u.disabled ? 'Disabled' : 'Active'}
              </Badge>
              {u.passwordResetRequestedAt && (
                <Badge ml="xs" color="orange" variant="light">
                  Reset requested
                </Badge>
              )}
            </Table.Td>
            <Table.Td>{formatDateTime(u.createdAt)}</Table.Td>
            <Table.Td>
              <Group gap="xs" wrap="nowrap">
                {actions(u)}
              </Group>
            </Table.Td>
          </>
        )}
        card={(u) => (
          <RowCard
            title={
              <>
                {u.name}
                {u.role === 'ADMIN' && (
                  <Badge ml="xs" size="xs" variant="outline">
                    ADMIN
                  </Badge>
                )}
              </>
            }
            fields={[
              { label: 'Username', value: u.username },
              { label: 'Credits', value: formatNumber(u.credits) },
              { label: 'Bulk messaging', value: flag(u.is_bulk_messaging_enabled === 1) },
              { label: 'Multiple sessions', value: flag(u.is_multisession_supported === 1) },
              {
                label: 'Status',
                value: u.disabled
                  ? 'Disabled'
                  : u.passwordResetRequestedAt
                    ? 'Active · reset requested'
                    : 'Active',
              },
              { label: 'Created', value: formatDateTime(u.createdAt) },
            ]}
            actions={actions(u)}
          />
        )}
      />

      <CreateUserModal opened={creating} onClose={() => setCreating(false)} onDone={done} />
      <EditUserModal
        key={editing?.id ?? 'none'}
        user={editing}
        onClose={() => setEditing(null)}
        onDone={done}
      />
      <CreditsModal
        key={crediting?.id ?? 'none'}
        user={crediting}
        onClose={() => setCrediting(null)}
        onDone={done}
      />
      <LedgerModal user={ledgerOf} onClose={() => setLedgerOf(null)} />
    </Stack>
  );
}
