import {
  Alert,
  Button,
  Card,
  Group,
  Loader,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import {
  IconChartBar,
  IconChecks,
  IconFileSpreadsheet,
  IconMessageCircle,
  IconSend,
  IconUsers,
  IconUsersGroup,
  IconUsersPlus,
  IconWallet,
} from '@tabler/icons-react';
import { MESSAGE_KIND_LABEL, type MessageJob, messageText } from '@wa/contract';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { NoAccountAlert, NoCreditsNote } from '../../components/FirstRunNotices.tsx';
import { JobStatusBadge } from '../../components/JobStatusBadge.tsx';
import { useCurrentAccount } from '../../components/useCurrentAccount.ts';
import { can } from '../../lib/capabilities.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { storage } from '../../lib/storage.ts';
import { useBalance, useUserDetails } from '../auth/api/get-user-details.ts';
import { useGroupsOfAccounts } from '../groups/api/get-groups-list.ts';
import { useDashboard } from './api/get-dashboard.ts';

function StatCard(props: { label: string; icon: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md" role="group" aria-label={props.label}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div>
          <Text size="sm" c="dimmed" fw={600}>
            {props.label}
          </Text>
          <Text component="div" size="xl" fw={700} mt={4}>
            {props.children}
          </Text>
        </div>
        {props.icon}
      </Group>
    </Paper>
  );
}

const icon = (Icon: typeof IconSend, color: string) => (
  <ThemeIcon variant="light" color={color} size="lg" radius="md" aria-hidden>
    <Icon size={20} />
  </ThemeIcon>
);

function RecentJob({ job }: { job: MessageJob }) {
  const one = job.progress.total === 1;
  const who = job.audience === 'groups' ? (one ? 'group' : 'groups') : one ? 'contact' : 'contacts';
  return (
    <Paper withBorder radius="sm" p="sm" component="li">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
          <Text size="sm" fw={600}>
            {job.isScheduled ? 'Scheduled ' : ''}
            {MESSAGE_KIND_LABEL[job.messageType]} to {formatNumber(job.progress.total)} {who}
          </Text>
          <Text size="sm" c="dimmed" lineClamp={1}>
            {messageText(job) || '—'}
          </Text>
          {job.isScheduled && job.scheduledTime && (
            <Text size="xs" c="violet.8" fw={600}>
              Scheduled for {formatDateTime(job.scheduledTime)}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            {formatDateTime(job.createdAt)} · {formatNumber(job.results.success)} sent,{' '}
            {formatNumber(job.results.failed)} failed
          </Text>
        </Stack>
        <div style={{ textAlign: 'right' }}>
          <JobStatusBadge job={job} size="md" />
        </div>
      </Group>
    </Paper>
  );
}

/** The user dashboard: real figures where the spec shows placeholders (docs/decisions.md, Dashboard). */
export default function DashboardPage() {
  useUserDetails();
  const balance = useBalance();
  const current = useCurrentAccount();
  // Total Groups counts the groups of the accounts that have groups (not a Cloud API number's).
  const groups = useGroupsOfAccounts(
    current.accounts.filter((s) => can(s, 'groups')).map((s) => s.sessionId),
  );
  const dashboard = useDashboard(current.accountId, !current.loading);
  const bulkEnabled = storage.isBulkEnabled();

  const groupsLoading = current.loading || groups.isLoading;
  const stats = dashboard.data;
  const figure = (n: number | undefined, suffix = '') =>
    dashboard.isLoading || current.loading ? (
      <Loader size="sm" aria-label="Loading" />
    ) : n === undefined ? (
      '—'
    ) : (
      `${formatNumber(n)}${suffix}`
    );

  const quickActions = [
    {
      to: '/compose',
      label: 'Compose Message',
      text: 'Send a message to your groups',
      icon: IconMessageCircle,
    },
    {
      to: '/groups/new',
      label: 'Add New Group',
      text: 'Make a WhatsApp group with its first members',
      icon: IconUsersPlus,
    },
    {
      to: '/bulkmessage',
      label: 'Import from Excel',
      text: bulkEnabled
        ? 'Upload a list of phone numbers (CSV or Excel .xlsx)'
        : 'Bulk messaging is not enabled for you',
      icon: IconFileSpreadsheet,
      disabled: !bulkEnabled,
    },
    { to: '/reports', label: 'View Reports', text: 'Open the MIS report of your jobs', icon: IconChartBar },
  ];

  return (
    <Stack gap="lg">
      <Title order={1} size="h2">
        Dashboard
      </Title>
      {!current.loading && !current.error && current.accounts.length === 0 && <NoAccountAlert />}

      <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 5 }} spacing="md">
        <StatCard label="Total Groups" icon={icon(IconUsersGroup, 'teal')}>
          {groupsLoading ? (
            <Loader size="sm" aria-label="Loading groups" />
          ) : groups.error ? (
            '—'
          ) : (
            formatNumber(groups.count)
          )}
        </StatCard>
        <StatCard label="Total Members" icon={icon(IconUsers, 'blue')}>
          {figure(stats?.totalMembers)}
        </StatCard>
        <StatCard label="Messages Sent" icon={icon(IconSend, 'violet')}>
          {figure(stats?.messagesSent)}
        </StatCard>
        <StatCard label="Delivery Rate" icon={icon(IconChecks, 'green')}>
          {dashboard.isLoading || current.loading ? (
            <Loader size="sm" aria-label="Loading" />
          ) : stats ? (
            `${Number(stats.deliveryRate.toFixed(1))}%`
          ) : (
            '—'
          )}
        </StatCard>
        <StatCard label="Account Balance" icon={icon(IconWallet, 'orange')}>
          {formatNumber(balance)}
        </StatCard>
      </SimpleGrid>
      <NoCreditsNote balance={balance} />

      {groups.error && (
        <Alert color="red" role="alert">
          {groups.error.message || 'Failed to fetch group chats'}
        </Alert>
      )}
      {dashboard.isError && (
        <Alert color="red" role="alert">
          {dashboard.error.message}
        </Alert>
      )}

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Card withBorder radius="md" padding="md">
          <Group justify="space-between" mb="sm">
            <Title order={3} size="h4">
              Recent Messages
            </Title>
            <Button component={Link} to="/jobs" variant="subtle" size="xs">
              View All Jobs
            </Button>
          </Group>
          {dashboard.isLoading ? (
            <Loader size="sm" aria-label="Loading recent messages" />
          ) : stats && stats.recentJobs.length > 0 ? (
            <Stack
              gap="xs"
              component="ul"
              p={0}
              m={0}
              style={{ listStyle: 'none' }}
              aria-label="Recent Messages"
            >
              {stats.recentJobs.map((job) => (
                <RecentJob key={job.id} job={job} />
              ))}
            </Stack>
          ) : (
            <Text c="dimmed" size="sm">
              No recent messages
            </Text>
          )}
        </Card>

        <Card withBorder radius="md" padding="md">
          <Title order={3} size="h4" mb="sm">
            Quick Actions
          </Title>
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
            {quickActions.map((a) => (
              <Button
                key={a.to}
                component={Link}
                to={a.to}
                variant="light"
                h="auto"
                py="sm"
                justify="flex-start"
                leftSection={<a.icon size={22} aria-hidden />}
                disabled={a.disabled}
                aria-disabled={a.disabled || undefined}
                onClick={a.disabled ? (e) => e.preventDefault() : undefined}
                styles={{ label: { whiteSpace: 'normal', textAlign: 'left' } }}
              >
                <Stack gap={0}>
                  <Text size="sm" fw={700} inherit>
                    {a.label}
                  </Text>
                  <Text size="xs" fw={400} c="dimmed">
                    {a.text}
                  </Text>
                </Stack>
              </Button>
            ))}
          </SimpleGrid>
        </Card>
      </SimpleGrid>
    </Stack>
  );
}
