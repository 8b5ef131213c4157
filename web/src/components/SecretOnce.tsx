import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';

/** A secret the server shows only once (an API key, a webhook's signing secret), with Copy. */
export function SecretOnce(props: { title: string; text: string; label: string; value: string }) {
  return (
    <Alert color="green" role="status" title={props.title}>
      <Stack gap="xs">
        <Text size="sm">{props.text}</Text>
        <Group gap="xs" wrap="nowrap">
          <Code aria-label={props.label} style={{ wordBreak: 'break-all' }}>
            {props.value}
          </Code>
          <CopyButton value={props.value}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  );
}
