import { Alert, Button, Group, Select, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { AUDIT_PAGE, useAudit } from './api/get-audit.ts';
import { auditDetails as describe } from './audit-details.ts';
import { userOption } from './user-option.ts';

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
  'credits.webhook-refund': 'Refunded by a Cloud API status',
};

const COLUMNS = [
  { header: 'Time' },
  { header: 'Who' },
  { header: 'What' },
  { header: 'User' },
  { header: 'Details' },
  { header: 'Address' },
];

/** The Admin page's audit tab: who did what to whom, when and from where, newest first. */
export function AuditLog({ users }: { users: { user_id: string; username: string; name?: string }[] }) {
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
        data={users.map(userOption)}
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
      <ListTable
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
        card={(e) => (
          <RowCard
            title={ACTIONS[e.action] ?? e.action}
            fields={[
              { label: 'When', value: formatDateTime(e.at) },
              { label: 'By', value: e.actor },
              { label: 'About', value: e.targetUsername ?? '–' },
              { label: 'Details', value: describe(e) },
              { label: 'IP', value: e.ip ?? '–' },
            ]}
          />
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
