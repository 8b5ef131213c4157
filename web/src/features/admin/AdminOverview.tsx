import { Alert, Card, Center, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { rateText } from '@wa/contract';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useAdminOverview } from './api/get-overview.ts';
import { MessagesChart } from './MessagesChart.tsx';

const OVERVIEW_COLUMNS = [
  { header: 'Name' },
  { header: 'Username' },
  { header: 'Balance', align: 'right' },
  { header: 'Credits used (month)', align: 'right' },
  { header: 'Jobs (month)', align: 'right' },
  { header: 'Failure rate', align: 'right' },
  { header: 'Delivered', align: 'right' },
  { header: 'Replied', align: 'right' },
  { header: 'Accounts', align: 'right' },
  { header: 'Last sign-in' },
] as const;

const percent = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`);

type Delivery = { sent: number; delivered: number; read: number; replied: number; undelivered: number };
/** A share of this month's sent messages. */
const ofSent = (d: Delivery, k: Exclude<keyof Delivery, 'sent'>) => rateText(d[k], d.sent);

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Card withBorder radius="md" padding="sm" role="group" aria-label={label}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="lg">
        {value}
      </Text>
    </Card>
  );
}

/** The overview above the spec's user picker: each managed user this month, totals, 30 days of messages. */
export function AdminOverview() {
  const overview = useAdminOverview();
  if (overview.isLoading)
    return (
      <Center py="md">
        <Loader size="sm" aria-label="Loading overview" />
      </Center>
    );
  if (overview.isError)
    return (
      <Alert color="red" role="alert">
        {overview.error.message}
      </Alert>
    );
  const { users, totals, messagesPerDay } = overview.data!;
  return (
    <Stack gap="md" component="section" aria-label="Overview">
      <Title order={3}>Overview</Title>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="sm">
        <Figure label="Users" value={formatNumber(totals.users)} />
        <Figure label="Total balance" value={formatNumber(totals.balance)} />
        <Figure label="Credits used this month" value={formatNumber(totals.creditsUsedThisMonth)} />
        <Figure label="Jobs this month" value={formatNumber(totals.jobsThisMonth)} />
        <Figure label="Failure rate this month" value={percent(totals.failureRateThisMonth)} />
        <Figure label="Delivered this month" value={ofSent(totals.deliveryThisMonth, 'delivered')} />
        <Figure label="Read this month" value={ofSent(totals.deliveryThisMonth, 'read')} />
        <Figure label="Replied this month" value={ofSent(totals.deliveryThisMonth, 'replied')} />
        <Figure label="Undelivered this month" value={ofSent(totals.deliveryThisMonth, 'undelivered')} />
        <Figure label="Accounts connected" value={`${totals.accountsConnected} / ${totals.accountsTotal}`} />
      </SimpleGrid>
      <Card withBorder radius="md">
        <Text fw={600} mb="xs">
          Messages per day
        </Text>
        <MessagesChart days={messagesPerDay} />
      </Card>
      <ListTable
        label="Users overview"
        columns={OVERVIEW_COLUMNS}
        rows={users}
        rowKey={(u) => u.id}
        loading={false}
        loadingLabel="Loading users"
        empty="No users yet."
        minWidth={1040}
        cells={(u) => (
          <>
            <Table.Td>{u.name}</Table.Td>
            <Table.Td>{u.username}</Table.Td>
            <Table.Td ta="right">{formatNumber(u.balance)}</Table.Td>
            <Table.Td ta="right">{formatNumber(u.creditsUsedThisMonth)}</Table.Td>
            <Table.Td ta="right">{formatNumber(u.jobsThisMonth)}</Table.Td>
            <Table.Td ta="right">{percent(u.failureRateThisMonth)}</Table.Td>
            <Table.Td ta="right">{ofSent(u.deliveryThisMonth, 'delivered')}</Table.Td>
            <Table.Td ta="right">{ofSent(u.deliveryThisMonth, 'replied')}</Table.Td>
            <Table.Td ta="right">
              {u.accountsConnected} / {u.accountsTotal}
            </Table.Td>
            <Table.Td>{u.lastSignInAt ? formatDateTime(u.lastSignInAt) : 'Never'}</Table.Td>
          </>
        )}
        card={(u) => (
          <RowCard
            title={`${u.name} (${u.username})`}
            fields={[
              { label: 'Balance', value: formatNumber(u.balance) },
              { label: 'Credits used (month)', value: formatNumber(u.creditsUsedThisMonth) },
              { label: 'Jobs (month)', value: formatNumber(u.jobsThisMonth) },
              { label: 'Failure rate', value: percent(u.failureRateThisMonth) },
              { label: 'Delivered', value: ofSent(u.deliveryThisMonth, 'delivered') },
              { label: 'Replied', value: ofSent(u.deliveryThisMonth, 'replied') },
              { label: 'Accounts', value: `${u.accountsConnected} / ${u.accountsTotal}` },
              { label: 'Last sign-in', value: u.lastSignInAt ? formatDateTime(u.lastSignInAt) : 'Never' },
            ]}
          />
        )}
      />
    </Stack>
  );
}
