import { Alert, Button, Stack, Text } from '@mantine/core';
import { Component, type ReactNode } from 'react';

type Props = { children: ReactNode; resetKey?: string };
type State = { error: Error | null };

/** A page chunk that failed to load (or a page that crashed) shows a message with Reload. */
export class ChunkErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error) {
    console.error('Page failed:', error);
  }

  override componentDidUpdate(prev: Props) {
    // Navigating elsewhere gives the next page a fresh chance.
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <Alert color="red" title="This page could not be loaded" role="alert" m="md">
        <Stack gap="sm" align="flex-start">
          <Text size="sm">
            The connection may have dropped or the console was updated. Reload to try again.
          </Text>
          <Button color="red" onClick={() => window.location.reload()}>
            Reload
          </Button>
        </Stack>
      </Alert>
    );
  }
}
