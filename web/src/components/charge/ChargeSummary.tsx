import { Alert, Button, Group, List, NumberInput, Stack, Text } from '@mantine/core';
import { IconHourglass } from '@tabler/icons-react';
import { formatNumber } from '../../lib/format.ts';
import { firstOfPlan, planRuns, type SendPlan, todayCount } from '../../lib/send-plan.ts';
import {
  type ChargeShare,
  costLine,
  creditsOf,
  lastGoesText,
  type Pace,
  shareLines,
} from './charge-lines.ts';

/** Everything a charge needs to be told before it is made. */
export type Charge = {
  /** Recipients of the whole send (the most that may be sent). */
  recipients: number;
  shares: readonly ChargeShare[];
  balance: number;
  /** Meta's estimated charge for the Cloud share of a template: '≈ ₹6.04 at Meta's rate'. */
  metaCharge?: string | null;
  /** The send day by day under the account's caps (null: no caps known). */
  plan?: SendPlan | null;
  pace?: Pace | null;
  /** A scheduled time, as the user reads it. */
  startsAt?: string | null;
  /** Why the account waits now. */
  holding?: string | null;
  /** One post that many see (a Status, a channel post): no day-by-day plan, no pace. */
  single?: boolean;
  /** What else the user should know before paying: left out numbers, a job that will wait. */
  notes?: readonly string[];
};

/**
 * What a charge is, the same before every action that takes credits: recipients, credits per kind
 * of account, Meta's estimated charge, the balance after, when the last message will go (day by
 * day when the account's caps spread it), and, when `onCount` is given, a way to send fewer.
 */
export function ChargeSummary(props: { charge: Charge; count: number; onCount?: (n: number) => void }) {
  const { charge, count } = props;
  const credits = creditsOf(count, charge.shares);
  // The day-by-day plan of what is sent: fewer than all when the user chose so.
  const plan = charge.plan ? firstOfPlan(charge.plan, count) : null;
  const runs = plan && plan.days.length > 1 ? planRuns(plan) : [];
  const today = charge.plan ? todayCount(charge.plan) : 0;
  return (
    <Stack gap="xs" role="group" aria-label="Cost">
      <Text fw={600}>{costLine(count, charge.balance, credits)}</Text>
      {shareLines(count, charge.shares).map((line) => (
        <Text key={line} size="sm">
          {line}
        </Text>
      ))}
      {charge.metaCharge && (
        <Text size="sm" aria-label="Meta's charge">
          Meta's estimated charge: {charge.metaCharge}
        </Text>
      )}
      <Text size="sm">Taken now; a message that fails is refunded.</Text>
      <Alert
        color={runs.length > 0 || charge.holding ? 'yellow' : 'blue'}
        variant="light"
        role="status"
        aria-label="When the last message goes"
        icon={<IconHourglass size={16} aria-hidden />}
        p="xs"
      >
        {lastGoesText({
          count,
          plan,
          pace: charge.pace ?? null,
          startsAt: charge.startsAt ?? null,
          holding: charge.holding ?? null,
          single: charge.single ?? false,
        })}
        {runs.length > 0 && (
          <List size="sm" mt={4} aria-label="Messages per day">
            {runs.map((r) => (
              <List.Item key={r}>{r}</List.Item>
            ))}
          </List>
        )}
      </Alert>
      {props.onCount && runs.length > 0 && (
        <Group gap="xs" align="flex-end" wrap="wrap">
          <NumberInput
            label="Send to the first"
            description={`of ${formatNumber(charge.recipients)} recipients`}
            value={count}
            onChange={(v) => props.onCount?.(Math.min(charge.recipients, Math.max(1, Number(v) || 1)))}
            min={1}
            max={charge.recipients}
            allowDecimal={false}
            thousandSeparator=","
            w={160}
          />
          {today > 0 && today < charge.recipients && (
            <Button variant="light" size="xs" onClick={() => props.onCount?.(today)}>
              Only what goes today ({formatNumber(today)})
            </Button>
          )}
          {count < charge.recipients && (
            <Button variant="subtle" size="xs" onClick={() => props.onCount?.(charge.recipients)}>
              All {formatNumber(charge.recipients)}
            </Button>
          )}
        </Group>
      )}
      {charge.notes?.map((n) => (
        <Text key={n} size="sm">
          {n}
        </Text>
      ))}
    </Stack>
  );
}
