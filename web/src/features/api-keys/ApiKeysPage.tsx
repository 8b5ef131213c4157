import {
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Code,
  CopyButton,
  Group,
  Loader,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { apiKeysQuery, createApiKey, revokeApiKey, useApiKeys } from './api.ts';

const errorText = (err: unknown) =>
  err instanceof ApiError ? err.message : 'Something went wrong. Please try again.';

/** API keys (avatar menu): make a key for a program, see when each was last used, revoke. */
export default function ApiKeysPage() {
  const queryClient = useQueryClient();
  const keys = useApiKeys();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: apiKeysQuery().queryKey });

  const create = useMutation({
    mutationFn: createApiKey,
    onSuccess: (res) => {
      setCreated({ name: name.trim(), key: res.key });
      setName('');
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: revokeApiKey,
    onSuccess: () => {
      setConfirming(null);
      refresh();
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCreated(null);
    create.mutate(name.trim());
  };
  const list = keys.data?.keys ?? [];

  return (
    <Stack gap="md">
      <Title order={2}>API keys</Title>
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

      {create.isError && (
        <Alert color="red" role="alert">
          {errorText(create.error)}
        </Alert>
      )}
      {created && (
        <Alert color="green" role="status" title={`Key '${created.name}' created`}>
          <Stack gap="xs">
            <Text size="sm">Copy it now: it is shown only this once.</Text>
            <Group gap="xs" wrap="nowrap">
              <Code aria-label="New API key" style={{ wordBreak: 'break-all' }}>
                {created.key}
              </Code>
              <CopyButton value={created.key}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="light" onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        </Alert>
      )}
      {revoke.isError && (
        <Alert color="red" role="alert">
          {errorText(revoke.error)}
        </Alert>
      )}

      <Card withBorder radius="md" p={0}>
        <Table.ScrollContainer minWidth={720}>
          <Table striped verticalSpacing="sm" aria-label="API keys">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Key</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.isLoading ? (
                <Table.Tr>
                  <Table.Td colSpan={6}>
                    <Center py="md">
                      <Loader size="sm" aria-label="Loading API keys" />
                    </Center>
                  </Table.Td>
                </Table.Tr>
              ) : list.length === 0 ? (
                <Table.Tr>
                  <Table.Td colSpan={6}>
                    <Text c="dimmed" ta="center" py="md">
                      No API keys yet.
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ) : (
                list.map((k) => (
                  <Table.Tr key={k.id}>
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
                            <Button
                              size="xs"
                              color="red"
                              loading={revoke.isPending}
                              onClick={() => revoke.mutate(k.id)}
                            >
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
                  </Table.Tr>
                ))
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
    </Stack>
  );
}
