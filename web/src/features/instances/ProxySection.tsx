import { Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { useAccountProxy, usePutAccountProxy } from './api/account-proxy.ts';
import { useTestProxy } from './api/test-proxy.ts';

/** The URL of a proxy from its parts; the password only when typed (it is never shown back). */
function urlOf(v: { address: string; username: string; password: string }): string {
  const address = v.address.trim();
  const m = /^(socks5h?|http):\/\/(.+)$/i.exec(address);
  if (!m || !v.username) return address;
  const auth = `${encodeURIComponent(v.username)}${v.password ? `:${encodeURIComponent(v.password)}` : ''}@`;
  return `${m[1]!.toLowerCase()}://${auth}${m[2]}`;
}

/**
 * An account's proxy: SOCKS5 or HTTP, with a user and password stored encrypted. The
 * connection, uploads and downloads of the account go through it; a dead proxy keeps the account
 * down with the reason on Instances, never direct. 'Test proxy' shows where it exits.
 */
export function ProxySection(props: { accountId: string }) {
  const current = useAccountProxy(props.accountId);
  const save = usePutAccountProxy();
  const test = useTestProxy();
  const proxy = current.data?.proxy ?? null;
  const [address, setAddress] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const url = urlOf({ address, username, password });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    save.mutate(
      { accountId: props.accountId, url },
      {
        onSuccess: (r) => {
          setSaved(r.message);
          setPassword('');
        },
      },
    );
  };

  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label="Proxy">
      <Stack gap="xs" component="form" onSubmit={submit}>
        <Title order={3} size="h5">
          Proxy
        </Title>
        <Text size="sm" c="dimmed">
          {proxy
            ? `Connects through ${proxy.scheme}://${proxy.host}:${proxy.port}${proxy.username ? ` as ${proxy.username}` : ''}${proxy.hasPassword ? ' (password saved)' : ''}.`
            : 'Connects directly (no proxy).'}{' '}
          With a proxy, this account never connects without it.
        </Text>
        <TextInput
          label="Proxy address"
          placeholder="socks5://203.0.113.7:1080 or http://proxy.example:3128"
          value={address}
          onChange={(e) => setAddress(e.currentTarget.value)}
        />
        <Group grow>
          <TextInput
            label="Proxy user"
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
          />
          <PasswordInput
            label="Proxy password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
        </Group>
        <Group gap="xs">
          <Button type="submit" size="xs" disabled={address.trim() === ''} loading={save.isPending}>
            Save proxy
          </Button>
          <Button
            size="xs"
            variant="light"
            disabled={address.trim() === '' && !proxy}
            loading={test.isPending}
            onClick={() => test.mutate({ accountId: props.accountId, ...(address.trim() ? { url } : {}) })}
          >
            Test proxy
          </Button>
          {proxy && (
            <Button
              size="xs"
              variant="light"
              color="red"
              loading={save.isPending && save.variables?.url === null}
              onClick={() =>
                save.mutate(
                  { accountId: props.accountId, url: null },
                  { onSuccess: (r) => setSaved(r.message) },
                )
              }
            >
              Remove proxy
            </Button>
          )}
        </Group>
        {saved && (
          <Text size="sm" c="green.8" role="status" aria-label="Proxy result">
            {saved}
          </Text>
        )}
        {test.data && (
          <Text size="sm" c={test.data.ok ? 'green.8' : 'red.9'} role="status" aria-label="Proxy test">
            {test.data.message}
          </Text>
        )}
        <ErrorAlert error={save.isError ? messageOf(save.error) : null} />
        <ErrorAlert error={test.isError ? messageOf(test.error) : null} />
        <ErrorAlert error={current.isError ? messageOf(current.error) : null} />
      </Stack>
    </Paper>
  );
}
