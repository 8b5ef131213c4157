import { Button, Group, Text } from '@mantine/core';
import { useEffect } from 'react';
import { useBlocker } from 'react-router-dom';
import { AppModal } from '../../components/AppModal.tsx';
import { formatNumber } from '../../lib/format.ts';

/** From this many recipients ticked and not sent, leaving the page asks first. */
export const LARGE_SELECTION = 100;

/**
 * Asks before leaving a page that holds a large unsent selection: a link or Back inside the app
 * opens the returned dialog; a reload or closing the tab gets the browser's own question. The
 * draft is kept either way; the question is for the person who forgot to press Send.
 */
export function LeaveGuard({ selected }: { selected: number }) {
  const guard = selected >= LARGE_SELECTION;
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      guard && currentLocation.pathname !== nextLocation.pathname && nextLocation.pathname !== '/login',
  );
  useEffect(() => {
    if (!guard) return;
    const ask = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [guard]);

  return (
    <AppModal
      opened={blocker.state === 'blocked'}
      onClose={() => blocker.reset?.()}
      title="Leave without sending?"
    >
      <Text size="sm">
        {formatNumber(selected)} recipients are ticked and nothing has been sent to them. Your draft stays in
        this browser: come back to this page to send it.
      </Text>
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={() => blocker.reset?.()}>
          Stay
        </Button>
        <Button onClick={() => blocker.proceed?.()}>Leave</Button>
      </Group>
    </AppModal>
  );
}
