import { Badge, Button, Card, Code, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { messageOf } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from './api.ts';

const COLUMNS = [
  { header: 'Name' },
  { header: 'Key' },
  { header: 'Created' },
  { header: 'Last used' },
  { header: 'Status' },
  { header: 'Actions' },
];

/** API keys (avatar menu): make a key for a program, see when each was last used, revoke. */
export default function ApiKeysPage() {
  const keys = useApiKeys();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCreated(null);
    const keyName = name.trim();
    create.mutate(keyName, {
      onSuccess: (res) => {
        setCreated({ name: keyName, key: res.key });
        setName('');
      },
    });
  };
  const onRevoke = (id: string) => revoke.mutate(id, { onSuccess: () => setConfirming(null) });
  const list = keys.data?.keys ?? [];

  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        API keys
      </Title>
      <Text>
        A key lets a program use the API as you: send <Code>Authorization: Bearer wak_…</Code>. It does not
        open the admin API and cannot make more keys.
      </Text>

      <Card withBorder radius="md" component="form" onSubmit={submit} aria-label="Create an API key">
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Key name"
            placeholder="Shop backend"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            maxLength={100}
            miw={240}
            required
          />
          <Button type="submit" leftSection={<IconKey size={16} aria-hidden />} loading={create.isPending}>
            Create key
          </Button>
        </Group>
      </Card>

      <ErrorAlert error={create.isError ? messageOf(create.error) : null} />
      {created && (
        <SecretOnce
          title={`Key '${created.name}' created`}
          text="Copy it now: it is shown only this once."
          label="New API key"
          value={created.key}
        />
      )}
      <ErrorAlert error={revoke.isError ? messageOf(revoke.error) : null} />

      <DataTable
        label="API keys"
        columns={COLUMNS}
        rows={list}
        rowKey={(k) => k.id}
        loading={keys.isLoading}
        loadingLabel="Loading API keys"
        empty="No API keys yet."
        minWidth={720}
        cells={(k) => (
          <>
            <Table.Td>{k.name}</Table.Td>
            <Table.Td>
              <Code>{k.prefix}…</Code>
            </Table.Td>
            <Table.Td>{formatDateTime(k.createdAt)}</Table.Td>
            <Table.Td>{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'Never'}</Table.Td>
            <Table.Td>
              <Badge color={k.revokedAt ? 'gray' : 'green'} variant="light">
                {k.revokedAt ? 'Revoked' : 'Active'}
              </Badge>
            </Table.Td>
            <Table.Td>
              {!k.revokedAt &&
                (confirming === k.id ? (
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" color="red" loading={revoke.isPending} onClick={() => onRevoke(k.id)}>
                      Revoke {k.name}
                    </Button>
                    <Button size="xs" variant="default" onClick={() => setConfirming(null)}>
                      Keep
                    </Button>
                  </Group>
                ) : (
                  <Button
                    size="xs"
                    variant="light"
                    color="red"
                    aria-label={`Revoke key ${k.name}`}
                    onClick={() => setConfirming(k.id)}
                  >
                    Revoke
                  </Button>
                ))}
            </Table.Td>
          </>
        )}
      />
    </Stack>
  );
}
