import { Alert, Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { IconPlayerPlay, IconPlus, IconQrcode, IconSettings, IconTrash } from '@tabler/icons-react';
import { type Account, accountLimitText } from '@wa/contract';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { NoticeAlert } from '../../components/NoticeAlert.tsx';
import { PageHeader, RefreshButton } from '../../components/PageHeader.tsx';
import { ApiError } from '../../lib/api.ts';
import type { Banner } from '../../lib/banner.ts';
import { capabilitiesOf } from '../../lib/capabilities.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { storage } from '../../lib/storage.ts';
import { AccountHealth } from './AccountHealth.tsx';
import { AccountKind } from './AccountKind.tsx';
import { AccountSettingsDrawer } from './AccountSettingsDrawer.tsx';
import { AccountStatusBadge } from './AccountStatusBadge.tsx';
import { AccountStatusReason } from './AccountStatusReason.tsx';
import { AddAccountModal } from './AddAccountModal.tsx';
import { useAccounts } from './api/get-accounts.ts';
import { useRestartAccount } from './api/restart-account.ts';
import { useResumeSending } from './api/resume-sending.ts';
import { useTerminateAccount } from './api/terminate-account.ts';
import { ConnectCloudModal } from './ConnectCloudModal.tsx';
import { QrModal } from './QrModal.tsx';
import { TerminateModal } from './TerminateModal.tsx';

// The kind sits under the phone number and the account id under the name: eight columns with a
// Cloud API row's webhook URL pushed Created and Actions out of a 1280 px window.
const COLUMNS = [
  { header: '#' },
  { header: 'Session Name' },
  { header: 'Phone Number' },
  { header: 'Status' },
  { header: 'Created' },
  { header: 'Actions' },
];

const serverText = (err: unknown, fallback: string) =>
  err instanceof ApiError && err.serverMessage ? err.serverMessage : fallback;

/** Instances: the user's accounts, adding one and linking it by QR, terminating one. */
export default function AccountsPage() {
  const accounts = useAccounts();
  const list = accounts.data ?? [];
  const [adding, setAdding] = useState(false);
  const [addingCloud, setAddingCloud] = useState(false);
  const [qrFor, setQrFor] = useState<{ accountId: string; name: string } | null>(null);
  const [toTerminate, setToTerminate] = useState<Account | null>(null);
  const [settingsFor, setSettingsFor] = useState<Account | null>(null);
  const [terminateError, setTerminateError] = useState<string | null>(null);
  const [notice, setNotice] = useState<Banner | null>(null);
  const terminate = useTerminateAccount();
  const resume = useResumeSending();
  const restart = useRestartAccount();

  const limitText = accountLimitText(list.length, storage.isMultiSession());

  const onTerminate = (accountId: string) =>
    terminate.mutate(accountId, {
      onSuccess: (res) => {
        if (storage.currentAccountId() === accountId) storage.setCurrentAccountId(null);
        setToTerminate(null);
        setNotice({ color: 'green', text: res.message || 'Session terminated successfully' });
      },
      onError: (err) => setTerminateError(serverText(err, 'Failed to terminate session')),
    });

  const onResume = (accountId: string) => {
    setNotice(null);
    resume.mutate(accountId, {
      onSuccess: (res) => setNotice({ color: 'green', text: res.message }),
      onError: (err) => setNotice({ color: 'red', text: serverText(err, 'Failed to resume sending') }),
    });
  };

  const connect = (s: Account) => {
    setNotice(null);
    const showQr = () => setQrFor({ accountId: s.sessionId, name: s.sessionName });
    // An account that is not waiting for a scan starts a new QR cycle first (docs/decisions.md, Restart).
    if (s.status === 'PENDING') return showQr();
    restart.mutate(s.sessionId, {
      onSuccess: showQr,
      onError: (err) =>
        setNotice({
          color: 'red',
          text: `Failed to connect: ${err instanceof Error ? err.message : String(err)}`,
        }),
    });
  };

  const actions = (s: Account) => (
    <>
      {s.status !== 'CONNECTED' && capabilitiesOf(s).pairing && (
        <Button
          size="xs"
          variant="light"
          leftSection={<IconQrcode size={14} aria-hidden />}
          loading={restart.isPending && restart.variables === s.sessionId}
          onClick={() => connect(s)}
          aria-label={`Connect ${s.sessionName}`}
        >
          Connect
        </Button>
      )}
      {s.sendPaused && (
        <Button
          size="xs"
          variant="light"
          color="orange"
          leftSection={<IconPlayerPlay size={14} aria-hidden />}
          loading={resume.isPending && resume.variables === s.sessionId}
          onClick={() => onResume(s.sessionId)}
          aria-label={`Resume sending ${s.sessionName}`}
        >
          Resume sending
        </Button>
      )}
      <Button
        size="xs"
        variant="light"
        color="gray"
        leftSection={<IconSettings size={14} aria-hidden />}
        onClick={() => setSettingsFor(s)}
        aria-label={`Account settings ${s.sessionName}`}
      >
        Account settings
      </Button>
      <Button
        size="xs"
        variant="light"
        color="red"
        leftSection={<IconTrash size={14} aria-hidden />}
        onClick={() => {
          setTerminateError(null);
          setNotice(null);
          setToTerminate(s);
        }}
        aria-label={`Terminate ${s.sessionName}`}
      >
        Terminate
      </Button>
    </>
  );

  return (
    <Stack gap="md">
      <PageHeader
        title={
          <>
            Instances{' '}
            <Badge
              size="lg"
              variant="light"
              color="gray"
              component="span"
              aria-label={`${list.length} instances`}
            >
              {formatNumber(list.length)}
            </Badge>
          </>
        }
      >
        <RefreshButton
          loading={accounts.isFetching}
          onClick={() => {
            setNotice(null);
            void accounts.refetch();
          }}
        />
        <Button
          leftSection={<IconPlus size={16} aria-hidden />}
          onClick={() => {
            setNotice(null);
            setAdding(true);
          }}
          disabled={!!limitText || accounts.isLoading}
        >
          ADD NEW
        </Button>
        <Button
          variant="light"
          leftSection={<IconPlus size={16} aria-hidden />}
          onClick={() => {
            setNotice(null);
            setAddingCloud(true);
          }}
          disabled={!!limitText || accounts.isLoading}
        >
          Connect Cloud API
        </Button>
      </PageHeader>

      {limitText && (
        <Alert color="yellow" role="note">
          {limitText}
        </Alert>
      )}
      <NoticeAlert notice={notice} onClose={() => setNotice(null)} />
      <ErrorAlert error={accounts.error?.message} />

      <ListTable
        label="Instances"
        columns={COLUMNS}
        rows={list}
        rowKey={(s) => s.sessionId}
        loading={accounts.isLoading}
        loadingLabel="Loading instances"
        empty="No instances yet. Add one with ADD NEW and scan its QR code with WhatsApp."
        minWidth={760}
        highlightOnHover
        card={(s, i) => (
          <RowCard
            title={`${i + 1}. ${s.sessionName}`}
            fields={[
              {
                label: 'Status',
                value: (
                  <>
                    <AccountStatusBadge status={s.status} />
                    <AccountStatusReason account={s} />
                    <AccountHealth accountId={s.sessionId} />
                  </>
                ),
              },
              { label: 'Phone Number', value: s.phoneNumber },
              { label: 'Kind', value: <AccountKind account={s} /> },
              {
                label: 'Session ID',
                value: (
                  <Text span size="sm" ff="monospace">
                    {s.sessionId}
                  </Text>
                ),
              },
              { label: 'Created', value: formatDateTime(s.createdAt) },
            ]}
            actions={actions(s)}
          />
        )}
        cells={(s, i) => (
          <>
            <Table.Td>{i + 1}</Table.Td>
            <Table.Td>
              {s.sessionName}
              <Text size="xs" c="dimmed" ff="monospace" maw={170} style={{ wordBreak: 'break-all' }}>
                {s.sessionId}
              </Text>
            </Table.Td>
            <Table.Td miw={180} maw={260}>
              <Text size="sm" mb={4}>
                {s.phoneNumber}
              </Text>
              <AccountKind account={s} />
            </Table.Td>
            <Table.Td miw={140}>
              <AccountStatusBadge status={s.status} />
              <AccountStatusReason account={s} />
              <AccountHealth accountId={s.sessionId} />
            </Table.Td>
            <Table.Td miw={100}>{formatDateTime(s.createdAt)}</Table.Td>
            <Table.Td>
              <Group gap="xs" wrap="wrap" maw={200}>
                {actions(s)}
              </Group>
            </Table.Td>
          </>
        )}
      />

      <AddAccountModal
        opened={adding}
        onClose={() => setAdding(false)}
        onCreated={(accountId, name) => {
          setAdding(false);
          setQrFor({ accountId, name });
        }}
      />
      <ConnectCloudModal
        opened={addingCloud}
        onClose={() => setAddingCloud(false)}
        onConnected={() => {
          setAddingCloud(false);
          setNotice({ color: 'green', text: 'Cloud API number connected' });
        }}
      />
      <QrModal account={qrFor} onClose={() => setQrFor(null)} />
      <AccountSettingsDrawer account={settingsFor} onClose={() => setSettingsFor(null)} />
      <TerminateModal
        account={toTerminate}
        busy={terminate.isPending}
        error={terminateError}
        onCancel={() => setToTerminate(null)}
        onConfirm={() => toTerminate && onTerminate(toTerminate.sessionId)}
      />
    </Stack>
  );
}
