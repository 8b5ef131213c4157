import { Button, Checkbox, Group, NumberInput, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { setConfirmSendsFrom } from './confirm-pref.ts';
import { SendForecast } from './SendForecast.tsx';
import type { SendCredits } from './send-cost.ts';
import { costLine } from './send-forecast.ts';

/**
 * 'Confirm send' before Send Now spends credits: recipients, credits and the balance
 * after, what the account's policy will do, and a way to stop asking for small sends.
 */
export function ConfirmSendModal(props: {
  opened: boolean;
  count: number;
  balance: number;
  /** What the recipients cost at the price of their accounts' kinds, and that price in words. */
  credits: SendCredits;
  priceText: string;
  forecast: string | null;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const [skip, setSkip] = useState(false);
  const [below, setBelow] = useState<number | string>(10);
  useEffect(() => {
    if (props.opened) setSkip(false);
  }, [props.opened]);
  const confirm = () => {
    if (skip && Number(below) > 0) setConfirmSendsFrom(Number(below));
    props.onConfirm();
  };
  return (
    <AppModal opened={props.opened} onClose={props.onCancel} title="Confirm send" returnFocus={false}>
      <Stack gap="sm">
        <Text fw={600}>{costLine(props.count, props.balance, props.credits)}</Text>
        <Text size="sm">{props.priceText}, taken now; a message that fails is refunded.</Text>
        <SendForecast text={props.forecast} />
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
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onCancel}>
            Cancel
          </Button>
          <Button onClick={confirm}>Send Now</Button>
        </Group>
      </Stack>
    </AppModal>
  );
}
