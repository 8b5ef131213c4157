import { Button, Group, Text } from '@mantine/core';
import type { Webhook } from '@wa/contract';
import { messageOf } from '../../lib/api.ts';
import { useSendTestEvent } from './api/send-test-event.ts';

/**
 * 'Send test event': one signed call to the receiver now, and what it
 * answered, so the URL and the signature check can be tried before a real event.
 */
export function TestEventButton(props: { webhook: Webhook }) {
  const test = useSendTestEvent();
  const attempt = test.data?.attempt;
  const result = test.isError
    ? { ok: false, text: messageOf(test.error) }
    : attempt
      ? attempt.ok
        ? { ok: true, text: `Test event delivered: HTTP ${attempt.statusCode} in ${attempt.durationMs} ms` }
        : { ok: false, text: `Test event not delivered: ${attempt.error ?? 'no answer'}` }
      : null;
  return (
    <Group gap="xs" wrap="wrap">
      <Button
        size="xs"
        variant="default"
        loading={test.isPending}
        onClick={() => test.mutate(props.webhook.id)}
      >
        Send test event
      </Button>
      {result && (
        <Text size="sm" role="status" c={result.ok ? 'green.9' : 'red.9'}>
          {result.text}
        </Text>
      )}
    </Group>
  );
}
