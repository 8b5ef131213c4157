import {
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Checkbox,
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
import { IconWebhook } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Webhook, WebhookEventName } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { createWebhook, deleteWebhook, useAttempts, useWebhooks, webhooksQuery } from './api.ts';

const EVENTS: { value: WebhookEventName; label: string }[] = [
  { value: 'job.finished', label: 'job.finished: a job has ended' },
  { value: 'message.status', label: 'message.status: sent, delivered, read or failed, per recipient' },
  { value: 'session.status', label: 'session.status: a linked account connected or disconnected' },
  { value: 'optout', label: 'optout: a contact opted out' },
];

const errorText = (err: unknown) =>
  err instanceof ApiError ? err.message : 'Something went wrong. Please try again.';

function Attempts({ webhook }: { webhook: Webhook }) {
  const attempts = useAttempts(webhook.id);
  const list = attempts.data?.attempts ?? [];
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table verticalSpacing="xs" aria-label={`Calls to ${webhook.url}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Event</Table.Th>
            <Table.Th ta="right">Events</Table.Th>
            <Table.Th>Result</Table.Th>
            <Table.Th ta="right">Duration</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {attempts.isLoading ? (
            <Table.Tr>
              <Table.Td colSpan={5}>
                <Center py="xs">
                  <Loader size="xs" aria-label="Loading calls" />
                </Center>
              </Table.Td>
            </Table.Tr>
          ) : list.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={5}>
                <Text c="dimmed" size="sm" ta="center">
                  No calls yet.
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            list.map((a) => (
              <Table.Tr key={a.id}>
                <Table.Td>{formatDateTime(a.at)}</Table.Td>
                <Table.Td>{a.event}</Table.Td>
                <Table.Td ta="right">{a.events}</Table.Td>
                <Table.Td>
                  <Badge color={a.ok ? 'green' : 'red'} variant="light">
                    {a.ok ? `Delivered (${a.statusCode})` : 'Failed'}
                  </Badge>
                  {a.error && (
                    <Text span size="sm" ml="xs">
                      {a.error}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right">{a.durationMs} ms</Table.Td>
              </Table.Tr>
            ))
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Webhooks (avatar menu): signed event calls to the user's own systems, with their last 50 calls. */
export default function WebhooksPage() {
  const queryClient = useQueryClient();
  const webhooks = useWebhooks();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['job.finished', 'message.status']);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: webhooksQuery().queryKey });

  const create = useMutation({
    mutationFn: createWebhook,
    onSuccess: (res) => {
      setCreated({ url: res.webhook.url, secret: res.webhook.secret });
      setUrl('');
      refresh();
    },
  });
  const remove = useMutation({ mutationFn: deleteWebhook, onSuccess: refresh });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCreated(null);
    create.mutate({ url: url.trim(), events: events as WebhookEventName[] });
  };
  const list = webhooks.data?.webhooks ?? [];

  return (
    <Stack gap="md">
      <Title order={2}>Webhooks</Title>
      <Text>
        Each event is a JSON POST signed with <Code>X-Webhook-Signature: sha256=…</Code> (HMAC-SHA256 of
        "timestamp.body" with the webhook's secret). Answer with 2xx within 5 seconds; other answers are
        retried for 24 hours.
      </Text>

      <Card withBorder radius="md" component="form" onSubmit={submit} aria-label="New webhook">
        <Stack gap="sm">
          <TextInput
            label="URL"
            placeholder="https://shop.example/wa-events"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            required
          />
          <Checkbox.Group label="Events" value={events} onChange={setEvents}>
            <Stack gap={6} mt={6}>
              {EVENTS.map((e) => (
                <Checkbox key={e.value} value={e.value} label={e.label} />
              ))}
            </Stack>
          </Checkbox.Group>
          <Group>
            <Button
              type="submit"
              leftSection={<IconWebhook size={16} aria-hidden />}
              loading={create.isPending}
            >
              Add webhook
            </Button>
          </Group>
        </Stack>
      </Card>

      {create.isError && (
        <Alert color="red" role="alert">
          {errorText(create.error)}
        </Alert>
      )}
      {created && (
        <Alert color="green" role="status" title="Webhook added">
          <Stack gap="xs">
            <Text size="sm">Signing secret for {created.url}: copy it now, it is shown only this once.</Text>
            <Group gap="xs" wrap="nowrap">
              <Code aria-label="Signing secret" style={{ wordBreak: 'break-all' }}>
                {created.secret}
              </Code>
              <CopyButton value={created.secret}>
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
      {remove.isError && (
        <Alert color="red" role="alert">
          {errorText(remove.error)}
        </Alert>
      )}

      {webhooks.isLoading ? (
        <Center py="md">
          <Loader size="sm" aria-label="Loading webhooks" />
        </Center>
      ) : list.length === 0 ? (
        <Text c="dimmed">No webhooks yet.</Text>
      ) : (
        list.map((w) => (
          <Card key={w.id} withBorder radius="md" aria-label={`Webhook ${w.url}`} component="section">
            <Stack gap="sm">
              <Group justify="space-between" wrap="wrap" gap="xs">
                <Stack gap={4}>
                  <Text fw={600} style={{ wordBreak: 'break-all' }}>
                    {w.url}
                  </Text>
                  <Group gap={4}>
                    {w.events.map((e) => (
                      <Badge key={e} variant="light">
                        {e}
                      </Badge>
                    ))}
                  </Group>
                </Stack>
                <Button
                  size="xs"
                  variant="light"
                  color="red"
                  aria-label={`Delete webhook ${w.url}`}
                  loading={remove.isPending && remove.variables === w.id}
                  onClick={() => remove.mutate(w.id)}
                >
                  Delete
                </Button>
              </Group>
              <Text size="sm" fw={600}>
                Last 50 calls
              </Text>
              <Attempts webhook={w} />
            </Stack>
          </Card>
        ))
      )}
    </Stack>
  );
}
