import { Alert, Card, Center, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { KEYBOARD_SCROLL } from '../../lib/a11y.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { MessagesChart } from './MessagesChart.tsx';
import { useAdminOverview } from './overview-api.ts';

const percent = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`);

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
        <Figure label="Accounts connected" value={`${totals.accountsConnected} / ${totals.accountsTotal}`} />
      </SimpleGrid>
      <Card withBorder radius="md">
        <Text fw={600} mb="xs">
          Messages per day
        </Text>
        <MessagesChart days={messagesPerDay} />
      </Card>
      <Card withBorder radius="md" p={0}>
        <Table.ScrollContainer minWidth={900} scrollAreaProps={KEYBOARD_SCROLL}>
          <Table striped verticalSpacing="sm" aria-label="Users overview">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Username</Table.Th>
                <Table.Th ta="right">Balance</Table.Th>
                <Table.Th ta="right">Credits used (month)</Table.Th>
                <Table.Th ta="right">Jobs (month)</Table.Th>
                <Table.Th ta="right">Failure rate</Table.Th>
                <Table.Th ta="right">Accounts</Table.Th>
                <Table.Th>Last sign-in</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {users.length === 0 ? (
                <Table.Tr>
                  <Table.Td colSpan={8}>
                    <Text c="dimmed" ta="center" py="md">
                      No users yet.
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ) : (
                users.map((u) => (
                  <Table.Tr key={u.id}>
                    <Table.Td>{u.name}</Table.Td>
                    <Table.Td>{u.username}</Table.Td>
                    <Table.Td ta="right">{formatNumber(u.balance)}</Table.Td>
                    <Table.Td ta="right">{formatNumber(u.creditsUsedThisMonth)}</Table.Td>
                    <Table.Td ta="right">{formatNumber(u.jobsThisMonth)}</Table.Td>
                    <Table.Td ta="right">{percent(u.failureRateThisMonth)}</Table.Td>
                    <Table.Td ta="right">
                      {u.accountsConnected} / {u.accountsTotal}
                    </Table.Td>
                    <Table.Td>{u.lastSignInAt ? formatDateTime(u.lastSignInAt) : 'Never'}</Table.Td>
                  </Table.Tr>
                ))
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
    </Stack>
  );
}
