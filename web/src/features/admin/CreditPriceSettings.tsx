import { Alert, Button, Group, NumberInput, Stack, Text, Title } from '@mantine/core';
import { CREDIT_PRICE_MAX } from '@wa/contract';
import { useEffect, useState } from 'react';
import { errorText } from '../../lib/api.ts';
import { useAdminCreditPrices, useSetCreditPrices } from './api/credit-prices.ts';

/**
 * Credits per recipient for each kind of account: a linked phone and a Cloud API
 * number may cost differently. A change applies to sends after it; a job already accepted keeps,
 * and refunds, what it was charged.
 */
export function CreditPriceSettings() {
  const prices = useAdminCreditPrices();
  const save = useSetCreditPrices();
  const [linked, setLinked] = useState<number | string>('');
  const [cloud, setCloud] = useState<number | string>('');
  const [banner, setBanner] = useState<{ color: string; text: string } | null>(null);
  const loaded = prices.data?.prices;
  useEffect(() => {
    if (loaded) {
      setLinked(loaded.linked);
      setCloud(loaded.cloud);
    }
  }, [loaded]);

  const submit = () => {
    setBanner(null);
    save.mutate(
      { linked: Number(linked), cloud: Number(cloud) },
      {
        onSuccess: (r) =>
          setBanner({
            color: 'green',
            text: `Saved: ${r.prices.linked} per recipient through a linked phone, ${r.prices.cloud} through a Cloud API account`,
          }),
        onError: (err) =>
          setBanner({
            color: 'red',
            text: errorText(err, 'Could not save the prices', 'Could not save the prices'),
          }),
      },
    );
  };
  const input = { min: 1, max: CREDIT_PRICE_MAX, allowDecimal: false, allowNegative: false, maw: 280 };
  return (
    <Stack
      gap="sm"
      component="form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Title order={2}>Credits per recipient</Title>
      <Text size="sm">
        What each recipient costs, by the kind of account that sends it. Jobs already accepted keep the price
        they were charged, and a failed message is refunded at that price.
      </Text>
      {prices.error && (
        <Alert color="red">
          {errorText(prices.error, 'Could not load the prices', 'Could not load the prices')}
        </Alert>
      )}
      <NumberInput
        label="Linked phone (credits per recipient)"
        value={linked}
        onChange={setLinked}
        {...input}
      />
      <NumberInput
        label="Cloud API account (credits per recipient)"
        value={cloud}
        onChange={setCloud}
        {...input}
      />
      <Group>
        <Button type="submit" loading={save.isPending} disabled={!loaded}>
          Save prices
        </Button>
      </Group>
      {banner && (
        <Alert color={banner.color} role={banner.color === 'red' ? 'alert' : 'status'}>
          {banner.text}
        </Alert>
      )}
    </Stack>
  );
}
