import { Alert, Button, Group, Select, Stack, Table, Text } from '@mantine/core';
import type { AuditEntry } from '@wa/contract';
import { useState } from 'react';
import { DataTable } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { AUDIT_PAGE, useAudit } from './overview-api.ts';

const ACTIONS: Record<string, string> = {
  'user.create': 'Created the user',
  'user.update': 'Changed the user',
  'user.credits': 'Changed credits',
  'auth.login': 'Signed in',
  'auth.login-failed': 'Failed sign-in',
  'apikey.create': 'Made an API key',
  'apikey.revoke': 'Revoked an API key',
  'webhook.create': 'Added a webhook',
  'webhook.delete': 'Deleted a webhook',
};

const COLUMNS = [
  { header: 'Time' },
  { header: 'Who' },
  { header: 'What' },
  { header: 'User' },
  { header: 'Details' },
  { header: 'Address' },
];

/** The details in words, one `key: value` per field. */
const describe = (e: AuditEntry) =>
  e.details
    ? Object.entries(e.details)
        .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
        .join(', ')
    : '';

/** The Admin page's audit tab: who did what to whom, when and from where, newest first. */
export function AuditLog({ users }: { users: { user_id: string; username: string }[] }) {
  const [page, setPage] = useState(0);
  const [userId, setUserId] = useState<string | null>(null);
  const audit = useAudit(page, userId);
  const entries = audit.data?.entries ?? [];
  const total = audit.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / AUDIT_PAGE));
  return (
    <Stack gap="md">
      <Select
        label="About user"
        placeholder="All users"
        data={users.map((u) => ({ value: u.user_id, label: u.username }))}
        value={userId}
        onChange={(v) => {
          setUserId(v);
          setPage(0);
        }}
        clearable
        searchable
        maw={360}
      />
      {audit.isError && (
        <Alert color="red" role="alert">
          {audit.error.message}
        </Alert>
      )}
      <DataTable
        label="Audit log"
        columns={COLUMNS}
        rows={entries}
        rowKey={(e) => e.id}
        loading={audit.isLoading}
        loadingLabel="Loading the audit log"
        empty="Nothing recorded yet."
        minWidth={900}
        cells={(e) => (
          <>
            <Table.Td>{formatDateTime(e.at)}</Table.Td>
            <Table.Td>{e.actor}</Table.Td>
            <Table.Td>{ACTIONS[e.action] ?? e.action}</Table.Td>
            <Table.Td>{e.targetUsername ?? '–'}</Table.Td>
            <Table.Td>
              <Text size="sm" style={{ wordBreak: 'break-word' }}>
                {describe(e)}
              </Text>
            </Table.Td>
            <Table.Td>{e.ip ?? '–'}</Table.Td>
          </>
        )}
      />
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {total} entries, page {page + 1} of {pages}
        </Text>
        <Group gap="xs">
          <Button variant="default" size="xs" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
            Newer
          </Button>
          <Button
            variant="default"
            size="xs"
            disabled={page + 1 >= pages}
            onClick={() => setPage((p) => p + 1)}
          >
            Older
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}
