import { Alert, Button, Group, Select, Stack, Tabs, Text, Title } from '@mantine/core';
import { IconUsers } from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router-dom';
import { storage } from '../../lib/storage.ts';
import { useUserDetails } from '../auth/api/get-user-details.ts';
import { AdminOverview } from './AdminOverview.tsx';
import { AuditLog } from './AuditLog.tsx';
import { CreditPriceSettings } from './CreditPriceSettings.tsx';
import { userOption } from './user-option.ts';

/**
 * /adminDashboard (ADMIN only): an overview of the admin's users first, then the spec's picker
 * of one user and that user's MIS Report (`report`: the report feature's, composed in app/pages.tsx,
 * since features do not import each other's components), and beside it that user's Inbox,
 * read-only; the audit log in its own tab, the credits per recipient of each kind of account in Settings.
 */
export default function AdminDashboardPage(props: {
  report: (userId: string) => ReactNode;
  /** The user's Inbox, read-only (the inbox feature's, composed in app/pages.tsx). */
  inbox: (userId: string) => ReactNode;
}) {
  // The list stored at sign-in shows at once; /api/userDetails brings it up to date.
  const details = useUserDetails();
  const users = details.data?.credits.admin_users ?? storage.adminUsers();
  const [userId, setUserId] = useState<string | null>(null);

  return (
    <Tabs defaultValue="overview" keepMounted={false}>
      {/* The page's H1 for screen readers: the header shows the same words. */}
      <Title order={1} className="visually-hidden">
        Admin Dashboard
      </Title>
      <Tabs.List mb="md">
        <Tabs.Tab value="overview">Overview</Tabs.Tab>
        <Tabs.Tab value="audit">Audit log</Tabs.Tab>
        <Tabs.Tab value="settings">Settings</Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="overview">
        <Stack gap="md">
          {/* ADMINs have no sidebar (spec): Manage Users is one click from their home. */}
          <Group>
            <Button
              component={Link}
              to="/users"
              variant="light"
              leftSection={<IconUsers size={16} aria-hidden />}
            >
              Manage Users
            </Button>
          </Group>
          <AdminOverview />
          <Title order={2}>Admin User</Title>
          <Text>Select an user from below to see the jobs</Text>
          <Select
            label="User"
            placeholder={users.length > 0 ? 'Select a user' : 'No users yet'}
            data={users.map(userOption)}
            value={userId}
            onChange={setUserId}
            searchable
            nothingFoundMessage="No user found"
            disabled={users.length === 0}
            maw={360}
          />
          {details.error && users.length === 0 && <Alert color="red">{details.error.message}</Alert>}
          {userId && (
            <Tabs defaultValue="jobs" keepMounted={false} key={userId}>
              <Tabs.List mb="md">
                <Tabs.Tab value="jobs">Jobs</Tabs.Tab>
                <Tabs.Tab value="inbox">Inbox</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="jobs">{props.report(userId)}</Tabs.Panel>
              <Tabs.Panel value="inbox">{props.inbox(userId)}</Tabs.Panel>
            </Tabs>
          )}
        </Stack>
      </Tabs.Panel>
      <Tabs.Panel value="audit">
        <AuditLog users={users} />
      </Tabs.Panel>
      <Tabs.Panel value="settings">
        <CreditPriceSettings />
      </Tabs.Panel>
    </Tabs>
  );
}
