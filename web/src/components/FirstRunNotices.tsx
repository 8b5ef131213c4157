import { Alert, Anchor, Group, Text } from '@mantine/core';
import { SERVICE_NAME, TEXTS } from '@wa/contract';
import { Link } from 'react-router-dom';

/**
 * The spec's 'No active session found' with the one click that fixes it (a new
 * user saw zeros and nothing said 'link WhatsApp first').
 */
export function NoAccountAlert(props: { why?: string }) {
  return (
    <Alert color="yellow" variant="light" role="status" aria-label="No linked WhatsApp">
      <Group gap="xs" wrap="wrap">
        <Text size="sm" inherit>
          {TEXTS.noSessionConnect}
          {props.why ? ` ${props.why}` : ''}
        </Text>
        <Anchor component={Link} to="/instances" size="sm" fw={600}>
          Link {SERVICE_NAME} in Instances
        </Anchor>
      </Group>
    </Alert>
  );
}

/** At balance 0, how credits are had: the user's admin adds them (docs/decisions.md, Sign-up and password resets: sign-up gives 0). */
export function NoCreditsNote(props: { balance: number }) {
  if (props.balance > 0) return null;
  return (
    <Text size="sm" c="dimmed" aria-live="polite">
      You have no credits: each recipient costs one. Ask your admin to add credits to your account.
    </Text>
  );
}
