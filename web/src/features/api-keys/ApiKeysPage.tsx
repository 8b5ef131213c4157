import {
  Badge,
  Button,
  Card,
  Code,
  Group,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { API_KEY_REVOKE_REASONS, TWO_FACTOR_MESSAGES } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { CodeInput } from '../../components/CodeInput.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ListTable } from '../../components/ListTable.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { messageOf } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useCreateApiKey } from './api/create-api-key.ts';
import { useApiKeys } from './api/get-api-keys.ts';
import { useRevokeApiKey } from './api/revoke-api-key.ts';

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
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  // The server asks for the code only when two-factor sign-in is on; the field appears then.
  const [askCode, setAskCode] = useState(false);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCreated(null);
    const keyName = name.trim();
    create.mutate(
      { name: keyName, password, ...(code.trim() ? { code: code.trim() } : {}) },
      {
        onSuccess: (res) => {
          setCreated({ name: keyName, key: res.key });
          setName('');
          setPassword('');
          setCode('');
        },
        onError: (err) => {
          if (messageOf(err) === TWO_FACTOR_MESSAGES.codeNeeded) setAskCode(true);
        },
      },
    );
  };
  const createError = create.isError ? messageOf(create.error) : null;
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
          <PasswordInput
            label="Your password"
            description="Asked again before a key is made"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            autoComplete="current-password"
            miw={200}
            required
          />
          {askCode && <CodeInput value={code} onValue={setCode} miw={160} />}
          <Button type="submit" leftSection={<IconKey size={16} aria-hidden />} loading={create.isPending}>
            Create key
          </Button>
        </Group>
      </Card>

      <ErrorAlert error={createError} />
      {created && (
        <SecretOnce
          title={`Key '${created.name}' created`}
          text="Copy it now: it is shown only this once."
          label="New API key"
          value={created.key}
        />
      )}
      <ErrorAlert error={revoke.isError ? messageOf(revoke.error) : null} />

      <ListTable
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
              {k.revokedReason && (
                <Text size="xs" c="dimmed" mt={4}>
                  {API_KEY_REVOKE_REASONS[k.revokedReason]}
                </Text>
              )}
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
