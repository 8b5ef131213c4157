import {
  Badge,
  Button,
  Card,
  Center,
  Checkbox,
  Code,
  Group,
  Loader,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconWebhook } from '@tabler/icons-react';
import type { Webhook, WebhookEventName } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ListTable } from '../../components/ListTable.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { messageOf } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useCreateWebhook } from './api/create-webhook.ts';
import { useDeleteWebhook } from './api/delete-webhook.ts';
import { useAttempts } from './api/get-attempts.ts';
import { useWebhooks } from './api/get-webhooks.ts';
import { TestEventButton } from './TestEventButton.tsx';

const EVENTS: { value: WebhookEventName; label: string }[] = [
  { value: 'job.finished', label: 'job.finished: a job has ended' },
  { value: 'message.status', label: 'message.status: sent, delivered, read or failed, per recipient' },
  { value: 'session.status', label: 'session.status: a linked account connected or disconnected' },
  { value: 'optout', label: 'optout: a contact opted out' },
  { value: 'message.received', label: 'message.received: someone wrote to one of your accounts' },
];

const ATTEMPT_COLUMNS = [
  { header: 'Time' },
  { header: 'Event' },
  { header: 'Events', align: 'right' as const },
  { header: 'Result' },
  { header: 'Duration', align: 'right' as const },
];

function Attempts({ webhook }: { webhook: Webhook }) {
  const attempts = useAttempts(webhook.id);
  return (
    <ListTable
      bare
      label={`Calls to ${webhook.url}`}
      columns={ATTEMPT_COLUMNS}
      rows={attempts.data?.attempts ?? []}
      rowKey={(a) => a.id}
      loading={attempts.isLoading}
      loadingLabel="Loading calls"
      empty="No calls yet."
      minWidth={640}
      cells={(a) => (
        <>
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
        </>
      )}
    />
  );
}

/** Webhooks (avatar menu): signed event calls to the user's own systems, with their last 50 calls. */
export default function WebhooksPage() {
  const webhooks = useWebhooks();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['job.finished', 'message.status']);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const create = useCreateWebhook();
  const remove = useDeleteWebhook();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCreated(null);
    create.mutate(
      { url: url.trim(), events: events as WebhookEventName[] },
      {
        onSuccess: (res) => {
          setCreated({ url: res.webhook.url, secret: res.webhook.secret });
          setUrl('');
        },
      },
    );
  };
  const list = webhooks.data?.webhooks ?? [];

  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        Webhooks
      </Title>
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

      <ErrorAlert error={create.isError ? messageOf(create.error) : null} />
      {created && (
        <SecretOnce
          title="Webhook added"
          text={`Signing secret for ${created.url}: copy it now, it is shown only this once.`}
          label="Signing secret"
          value={created.secret}
        />
      )}
      <ErrorAlert error={remove.isError ? messageOf(remove.error) : null} />

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
                <Group gap="xs">
                  <TestEventButton webhook={w} />
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
