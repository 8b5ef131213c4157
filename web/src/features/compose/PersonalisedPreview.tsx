import { Alert, Paper, Stack, Text } from '@mantine/core';
import { parseTemplate, renderTemplate, unknownFieldMessage } from '@wa/contract';
import { useMemo } from 'react';

export type PreviewRecipient = { phoneNumber: string; fields: Readonly<Record<string, string>> };

/**
 * The text as three recipients will get it (contract/template.ts, the server's rule), and the
 * server's 'Unknown field {{city}} (available: …)' when the text names a field no recipient has.
 * A preview picks spintax variants in turn, so each variant shows; the send picks at random.
 */
export function PersonalisedPreview(props: {
  text: string;
  available: readonly string[];
  recipients: readonly PreviewRecipient[];
}) {
  const parts = useMemo(() => parseTemplate(props.text), [props.text]);
  if (props.text.trim() === '') return null;
  const unknown = unknownFieldMessage(parts, props.available);
  return (
    <Stack gap="xs" mt="md" component="section" aria-label="Message preview">
      {unknown && (
        <Alert color="red" variant="light" role="alert" aria-label="Unknown field">
          {unknown}
        </Alert>
      )}
      <Text size="sm" fw={600}>
        Preview
      </Text>
      {props.recipients.length === 0 ? (
        <Text size="sm" c="dimmed">
          Choose recipients to see their messages.
        </Text>
      ) : (
        props.recipients.slice(0, 3).map((r, i) => (
          <Paper
            key={r.phoneNumber}
            withBorder
            p="xs"
            radius="sm"
            aria-label={`Preview for ${r.phoneNumber}`}
          >
            <Text size="xs" c="dimmed">
              To {r.phoneNumber}
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {renderTemplate(parts, r.fields, (n) => i % n)}
            </Text>
          </Paper>
        ))
      )}
    </Stack>
  );
}
