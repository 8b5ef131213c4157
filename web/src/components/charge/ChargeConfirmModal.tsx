import { Alert, Button, Checkbox, Group, NumberInput, Stack, Text } from '@mantine/core';
import { type ReactNode, useEffect, useState } from 'react';
import { AppModal } from '../AppModal.tsx';
import { type Charge, ChargeSummary } from './ChargeSummary.tsx';
import { setConfirmSendsFrom } from './confirm-pref.ts';

/**
 * The one confirmation before anything takes credits (Send Now, Schedule, a template, a Status or
 * channel post, Retry Failed): what it costs and when it goes (ChargeSummary), then the action's
 * own button. `fewer`: the user may send to the first N only. `askAgain`: the choice to stop
 * asking for small sends (Send Now). `children`: what goes out (a per-recipient preview).
 */
export function ChargeConfirmModal(props: {
  opened: boolean;
  title?: string;
  /** The confirming button's words: 'Send Now', 'Post status'. */
  action: string;
  charge: Charge;
  fewer?: boolean;
  askAgain?: boolean;
  busy?: boolean;
  error?: string | null;
  children?: ReactNode;
  onCancel: () => void;
  onConfirm: (count: number) => void;
}) {
  const [count, setCount] = useState(props.charge.recipients);
  const [skip, setSkip] = useState(false);
  const [below, setBelow] = useState<number | string>(10);
  useEffect(() => {
    if (props.opened) {
      setSkip(false);
      setCount(props.charge.recipients);
    }
  }, [props.opened, props.charge.recipients]);
  const confirm = () => {
    if (skip && Number(below) > 0) setConfirmSendsFrom(Number(below));
    props.onConfirm(count);
  };
  return (
    <AppModal
      opened={props.opened}
      onClose={props.onCancel}
      title={props.title ?? 'Confirm send'}
      returnFocus={false}
      size="lg"
    >
      <Stack gap="sm">
        {props.children}
        <ChargeSummary charge={props.charge} count={count} onCount={props.fewer ? setCount : undefined} />
        {props.askAgain && (
          <Group gap="xs" align="center" wrap="wrap">
            <Checkbox
              checked={skip}
              onChange={(e) => setSkip(e.currentTarget.checked)}
              label="Do not ask again for sends of fewer than"
            />
            <NumberInput
              aria-label="Recipients"
              value={below}
              onChange={setBelow}
              min={1}
              max={1_000_000}
              allowDecimal={false}
              w={110}
              size="xs"
              disabled={!skip}
            />
            <Text size="sm">recipients</Text>
          </Group>
        )}
        {props.error && (
          <Alert color="red" variant="light" role="alert">
            {props.error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onCancel} disabled={props.busy}>
            Cancel
          </Button>
          <Button onClick={confirm} loading={props.busy}>
            {props.action}
          </Button>
        </Group>
      </Stack>
    </AppModal>
  );
}
