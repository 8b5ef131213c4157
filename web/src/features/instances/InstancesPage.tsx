import {
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Group,
  Image,
  Loader,
  Modal,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconPlayerPlay, IconPlus, IconQrcode, IconRefresh, IconTrash } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Session } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { useSessions } from '../../api/sessions.ts';
import { SESSION_STATUS_COLOR } from '../../app/theme.ts';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { storage } from '../../lib/storage.ts';
import {
  createInstance,
  MAX_INSTANCES_MULTI,
  restartSession,
  resumeSending,
  terminateSession,
} from './api.ts';
import { QR_TEXT, useQrFlow } from './useQrFlow.ts';

/** Above the demo-mode banner (z-index 1000), which would hide a full-screen modal's title and close button. */
const MODAL_Z = 1100;

const ONLY_ONE = 'Only one instance is allowed. Please remove the existing instance first.';
const MAX_MULTI = `You can have at most ${MAX_INSTANCES_MULTI} instances. Please remove an existing instance first.`;

/** CONNECTED, DISCONNECTED, PENDING, or unknown for any other value (spec section 4). */
function StatusBadge({ status }: { status: string }) {
  const known = status in SESSION_STATUS_COLOR;
  return (
    <Badge color={known ? SESSION_STATUS_COLOR[status] : 'gray'} variant={known ? 'filled' : 'outline'}>
      {known ? status : 'unknown'}
    </Badge>
  );
}

/** The reason a session does not send, in words; red when it stops sending (banned, paused). */
function StatusReason({ session }: { session: Session }) {
  if (!session.statusReason) return null;
  return (
    <Text size="xs" c={session.status === 'CONNECTED' ? 'red' : 'dimmed'} mt={4} maw={260}>
      {session.statusReason}
    </Text>
  );
}

function AddInstanceModal(props: {
  opened: boolean;
  onClose: () => void;
  onCreated: (sessionId: string, sessionName: string) => void;
}) {
  const fullScreen = useMediaQuery('(max-width: 48em)');
  const [phoneNumber, setPhoneNumber] = useState('');
  const [sessionName, setSessionName] = useState('');
  const [errors, setErrors] = useState<{ phoneNumber?: string; sessionName?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({ mutationFn: createInstance });

  const close = () => {
    setPhoneNumber('');
    setSessionName('');
    setErrors({});
    setError(null);
    props.onClose();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = {
      phoneNumber: phoneNumber.trim() ? undefined : 'Please enter a phone number',
      sessionName: sessionName.trim() ? undefined : 'Please enter a session name',
    };
    setErrors(found);
    if (found.phoneNumber || found.sessionName) return;
    setError(null);
    try {
      const name = sessionName.trim();
      const res = await create.mutateAsync({ phoneNumber: phoneNumber.trim(), sessionName: name });
      setPhoneNumber('');
      setSessionName('');
      props.onCreated(res.sessionId, name);
    } catch (err) {
      setError(
        err instanceof ApiError
          ? (err.serverMessage ??
              (err.status >= 500 ? 'Server error. Please try again later.' : 'Failed to create instance'))
          : 'Server error. Please try again later.',
      );
    }
  };

  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      zIndex={MODAL_Z}
      opened={props.opened}
      onClose={close}
      title="Add New Instance"
      fullScreen={fullScreen}
      centered
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput
            label="Phone Number"
            placeholder="Enter phone number with country code (e.g. 919876543210)"
            inputMode="tel"
            value={phoneNumber}
            onChange={(e) => setPhoneNumber(e.currentTarget.value)}
            error={errors.phoneNumber}
            data-autofocus
          />
          <TextInput
            label="Session Name"
            placeholder="e.g. Shop phone"
            value={sessionName}
            onChange={(e) => setSessionName(e.currentTarget.value)}
            error={errors.sessionName}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create Instance
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function QrModal(props: { session: { sessionId: string; name: string } | null; onClose: () => void }) {
  const fullScreen = useMediaQuery('(max-width: 48em)');
  const { state, retry, imageFailed } = useQrFlow(props.session?.sessionId ?? null, props.onClose);

  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      zIndex={MODAL_Z}
      opened={!!props.session}
      onClose={props.onClose}
      title={`Connect WhatsApp${props.session ? `: ${props.session.name}` : ''}`}
      fullScreen={fullScreen}
      centered
    >
      <Stack align="center" gap="md" py="sm">
        {state.phase === 'connected' ? (
          <Alert color="green" role="status" w="100%">
            {QR_TEXT.connected}
          </Alert>
        ) : state.phase === 'failed' || state.phase === 'error' ? (
          <>
            <Alert color="red" role="alert" w="100%">
              {state.error}
              {state.reason && state.reason !== state.error && (
                <Text size="sm" mt={4}>
                  {state.reason}
                </Text>
              )}
            </Alert>
            <Button leftSection={<IconRefresh size={16} aria-hidden />} onClick={retry}>
              Retry
            </Button>
          </>
        ) : state.phase === 'shown' && state.imageUrl ? (
          <>
            <Text size="sm" ta="center">
              Open WhatsApp on your phone, go to Linked devices and scan this code.
            </Text>
            <Image
              src={state.imageUrl}
              alt="QR code to link WhatsApp"
              w={260}
              h={260}
              fit="contain"
              onError={imageFailed}
            />
            {state.error && (
              <Alert color="red" role="alert" w="100%">
                {state.error}
              </Alert>
            )}
            <Text size="sm" c="dimmed" aria-live="polite">
              QR code refreshes in {state.countdown}s
            </Text>
          </>
        ) : (
          <Center h={260}>
            <Stack align="center" gap="xs">
              <Loader aria-label="Loading QR code" />
              <Text size="sm" c="dimmed">
                Loading QR code...
              </Text>
              {state.reason && (
                <Alert color="yellow" role="status" w="100%">
                  {state.reason}
                </Alert>
              )}
            </Stack>
          </Center>
        )}
      </Stack>
    </Modal>
  );
}

function TerminateModal(props: {
  session: Session | null;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const fullScreen = useMediaQuery('(max-width: 48em)');
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      zIndex={MODAL_Z}
      opened={!!props.session}
      onClose={props.onCancel}
      title="Confirm Termination"
      fullScreen={fullScreen}
      centered
    >
      <Stack gap="md">
        <Text>
          Are you sure you want to terminate the session <b>{props.session?.sessionName}</b> (
          {props.session?.phoneNumber})? The WhatsApp account is unlinked and the session is removed.
        </Text>
        {props.error && (
          <Alert color="red" role="alert">
            {props.error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onCancel}>
            Cancel
          </Button>
          <Button color="red" loading={props.busy} onClick={props.onConfirm}>
            Terminate
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Instances: the user's sessions, adding one and linking it by QR, terminating one. */
export default function InstancesPage() {
  const queryClient = useQueryClient();
  const sessions = useSessions();
  const list = sessions.data ?? [];
  const multi = storage.isMultiSession();
  const [adding, setAdding] = useState(false);
  const [qrFor, setQrFor] = useState<{ sessionId: string; name: string } | null>(null);
  const [toTerminate, setToTerminate] = useState<Session | null>(null);
  const [terminateError, setTerminateError] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ color: string; text: string } | null>(null);

  // DECISIONS.md: single-session users may have 1 instance; multi-session users at most 10.
  const limitText =
    !multi && list.length >= 1 ? ONLY_ONE : multi && list.length >= MAX_INSTANCES_MULTI ? MAX_MULTI : null;

  const reload = () => queryClient.invalidateQueries({ queryKey: ['sessions'] });

  const terminate = useMutation({
    mutationFn: (sessionId: string) => terminateSession(sessionId),
    onSuccess: (res, sessionId) => {
      if (storage.currentSessionId() === sessionId) storage.setCurrentSessionId(null);
      setToTerminate(null);
      setNotice({ color: 'green', text: res.message || 'Session terminated successfully' });
      void reload();
    },
    onError: (err) => {
      setTerminateError(
        err instanceof ApiError && err.serverMessage ? err.serverMessage : 'Failed to terminate session',
      );
    },
  });

  const resume = useMutation({
    mutationFn: (sessionId: string) => resumeSending(sessionId),
    onSuccess: (res) => {
      setNotice({ color: 'green', text: res.message });
      void reload();
    },
    onError: (err) => {
      setNotice({
        color: 'red',
        text: err instanceof ApiError && err.serverMessage ? err.serverMessage : 'Failed to resume sending',
      });
    },
  });

  const connect = async (s: Session) => {
    setNotice(null);
    // A session that is not waiting for a scan starts a new QR cycle first (DECISIONS.md, restart).
    if (s.status !== 'PENDING') {
      try {
        await restartSession(s.sessionId);
      } catch (err) {
        setNotice({
          color: 'red',
          text: `Failed to connect: ${err instanceof Error ? err.message : String(err)}`,
        });
        return;
      }
    }
    setQrFor({ sessionId: s.sessionId, name: s.sessionName });
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={2}>
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
        </Title>
        <Group gap="sm">
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} aria-hidden />}
            onClick={() => {
              setNotice(null);
              void sessions.refetch();
            }}
            loading={sessions.isFetching}
          >
            Refresh
          </Button>
          <Button
            leftSection={<IconPlus size={16} aria-hidden />}
            onClick={() => {
              setNotice(null);
              setAdding(true);
            }}
            disabled={!!limitText || sessions.isLoading}
          >
            ADD NEW
          </Button>
        </Group>
      </Group>

      {limitText && (
        <Alert color="yellow" role="note">
          {limitText}
        </Alert>
      )}
      {notice && (
        <Alert
          color={notice.color}
          role={notice.color === 'red' ? 'alert' : 'status'}
          withCloseButton
          onClose={() => setNotice(null)}
          closeButtonLabel="Dismiss"
        >
          {notice.text}
        </Alert>
      )}
      {sessions.isError && (
        <Alert color="red" role="alert">
          {sessions.error.message}
        </Alert>
      )}

      <Card withBorder radius="md" p={0}>
        <Table.ScrollContainer minWidth={900}>
          <Table striped highlightOnHover verticalSpacing="sm" aria-label="Instances">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>#</Table.Th>
                <Table.Th>Session Name</Table.Th>
                <Table.Th>Phone Number</Table.Th>
                <Table.Th>Session ID</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {sessions.isLoading ? (
                <Table.Tr>
                  <Table.Td colSpan={7}>
                    <Center py="md">
                      <Loader size="sm" aria-label="Loading instances" />
                    </Center>
                  </Table.Td>
                </Table.Tr>
              ) : list.length === 0 ? (
                <Table.Tr>
                  <Table.Td colSpan={7}>
                    <Text c="dimmed" ta="center" py="md">
                      No instances yet. Add one with ADD NEW and scan its QR code with WhatsApp.
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ) : (
                list.map((s, i) => (
                  <Table.Tr key={s.sessionId}>
                    <Table.Td>{i + 1}</Table.Td>
                    <Table.Td>{s.sessionName}</Table.Td>
                    <Table.Td>{s.phoneNumber}</Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {s.sessionId}
                      </Text>
                    </Table.Td>
                    <Table.Td miw={140}>
                      <StatusBadge status={s.status} />
                      <StatusReason session={s} />
                    </Table.Td>
                    <Table.Td>{formatDateTime(s.createdAt)}</Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        {s.status !== 'CONNECTED' && (
                          <Button
                            size="xs"
                            variant="light"
                            leftSection={<IconQrcode size={14} aria-hidden />}
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
                            onClick={() => {
                              setNotice(null);
                              resume.mutate(s.sessionId);
                            }}
                            aria-label={`Resume sending ${s.sessionName}`}
                          >
                            Resume sending
                          </Button>
                        )}
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
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>

      <AddInstanceModal
        opened={adding}
        onClose={() => setAdding(false)}
        onCreated={(sessionId, name) => {
          setAdding(false);
          void reload();
          setQrFor({ sessionId, name });
        }}
      />
      <QrModal
        session={qrFor}
        onClose={() => {
          setQrFor(null);
          void reload();
        }}
      />
      <TerminateModal
        session={toTerminate}
        busy={terminate.isPending}
        error={terminateError}
        onCancel={() => setToTerminate(null)}
        onConfirm={() => toTerminate && terminate.mutate(toTerminate.sessionId)}
      />
    </Stack>
  );
}
