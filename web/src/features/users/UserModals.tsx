import {
  Alert,
  Badge,
  Button,
  Center,
  Group,
  Loader,
  Modal,
  NumberInput,
  PasswordInput,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { LedgerEntry, ManagedUser } from '@wa/contract';
import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { createUser, grantCredits, updateUser, useLedger } from './api.ts';

/** Above the demo-mode banner (z-index 1000), which would hide a full-screen modal's title and close button. */
const MODAL_Z = 1100;

const errorText = (err: unknown) =>
  err instanceof ApiError ? err.message : 'Something went wrong. Please try again.';

function FormModal(props: { title: string; opened: boolean; onClose: () => void; children: ReactNode }) {
  const fullScreen = useMediaQuery('(max-width: 48em)');
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      zIndex={MODAL_Z}
      opened={props.opened}
      onClose={props.onClose}
      title={props.title}
      fullScreen={fullScreen}
      centered
    >
      {props.children}
    </Modal>
  );
}

function ErrorAlert({ error }: { error: string | null }) {
  return error ? (
    <Alert color="red" role="alert">
      {error}
    </Alert>
  ) : null;
}

/** Mirrors the server's checks (contract RegisterBody) so that mistakes show beside the field. */
function checkNewUser(f: { name: string; username: string; password: string }) {
  const e: Partial<Record<'name' | 'username' | 'password', string>> = {};
  if (!f.name.trim()) e.name = 'Name is required';
  const u = f.username.trim();
  if (u.length < 3) e.username = 'Username must be at least 3 characters';
  else if (!/^[A-Za-z0-9._-]+$/.test(u))
    e.username = 'Username may contain only letters, digits, dots, dashes and underscores';
  if (f.password.length < 8) e.password = 'Password must be at least 8 characters';
  return e;
}

export function CreateUserModal(props: {
  opened: boolean;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const [name, setName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [credits, setCredits] = useState<number | string>(0);
  const [bulk, setBulk] = useState(false);
  const [multi, setMulti] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<ReturnType<typeof checkNewUser>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const reset = () => {
    setName('');
    setUsername('');
    setPassword('');
    setCredits(0);
    setBulk(false);
    setMulti(false);
    setFieldErrors({});
    setError(null);
  };
  const close = () => {
    reset();
    props.onClose();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = checkNewUser({ name, username, password });
    setFieldErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(null);
    try {
      const res = await createUser({
        name: name.trim(),
        username: username.trim(),
        password,
        credits: Number(credits) || 0,
        is_bulk_messaging_enabled: bulk,
        is_multisession_supported: multi,
      });
      reset();
      props.onDone(`User ${res.user.username} created`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormModal title="Add User" opened={props.opened} onClose={close}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <ErrorAlert error={error} />
          <TextInput
            label="Name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={fieldErrors.name}
          />
          <TextInput
            label="Username"
            value={username}
            autoComplete="off"
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={fieldErrors.username}
          />
          <PasswordInput
            label="Password"
            autoComplete="new-password"
            description="At least 8 characters"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={fieldErrors.password}
          />
          <NumberInput
            label="Credits"
            min={0}
            allowDecimal={false}
            allowNegative={false}
            thousandSeparator=","
            thousandsGroupStyle="lakh"
            value={credits}
            onChange={setCredits}
          />
          <Switch
            label="Bulk messaging enabled"
            checked={bulk}
            onChange={(e) => setBulk(e.currentTarget.checked)}
          />
          <Switch
            label="Multi-session supported"
            checked={multi}
            onChange={(e) => setMulti(e.currentTarget.checked)}
          />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Create User
            </Button>
          </Group>
        </Stack>
      </form>
    </FormModal>
  );
}

export function EditUserModal(props: {
  user: ManagedUser | null;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const u = props.user;
  // Keyed by the user's id (see UsersPage), so the fields start from that user's values.
  const [name, setName] = useState(u?.name ?? '');
  const [bulk, setBulk] = useState(u?.is_bulk_messaging_enabled === 1);
  const [multi, setMulti] = useState(u?.is_multisession_supported === 1);
  const [disabled, setDisabled] = useState(u?.disabled ?? false);
  const [password, setPassword] = useState('');
  const [fieldErrors, setFieldErrors] = useState<{ name?: string; password?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!u) return;
    const found = {
      name: name.trim() ? undefined : 'Name is required',
      password: password && password.length < 8 ? 'Password must be at least 8 characters' : undefined,
    };
    setFieldErrors(found);
    if (found.name || found.password) return;
    const body: Parameters<typeof updateUser>[1] = {};
    if (name.trim() !== u.name) body.name = name.trim();
    if (bulk !== (u.is_bulk_messaging_enabled === 1)) body.is_bulk_messaging_enabled = bulk;
    if (multi !== (u.is_multisession_supported === 1)) body.is_multisession_supported = multi;
    if (disabled !== u.disabled) body.disabled = disabled;
    if (password) body.password = password;
    if (Object.keys(body).length === 0) {
      props.onClose();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await updateUser(u.id, body);
      props.onDone(
        password ? `User ${u.username} updated; the new password is set` : `User ${u.username} updated`,
      );
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormModal title={u ? `Edit ${u.username}` : 'Edit user'} opened={!!u} onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <ErrorAlert error={error} />
          {u?.passwordResetRequestedAt && (
            <Alert color="orange" role="note">
              This user asked for a password reset on {formatDateTime(u.passwordResetRequestedAt)}. Set a new
              password below and tell the user.
            </Alert>
          )}
          <TextInput
            label="Name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={fieldErrors.name}
          />
          <Switch
            label="Bulk messaging enabled"
            checked={bulk}
            onChange={(e) => setBulk(e.currentTarget.checked)}
          />
          <Switch
            label="Multi-session supported"
            checked={multi}
            onChange={(e) => setMulti(e.currentTarget.checked)}
          />
          <Switch
            label="Account disabled"
            color="red"
            checked={disabled}
            onChange={(e) => setDisabled(e.currentTarget.checked)}
          />
          <PasswordInput
            label="New password"
            description="Leave empty to keep the current password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={fieldErrors.password}
          />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </FormModal>
  );
}

export function CreditsModal(props: {
  user: ManagedUser | null;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const u = props.user;
  const [amount, setAmount] = useState<number | string>('');
  const [note, setNote] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!u) return;
    const n = typeof amount === 'number' ? amount : Number(String(amount).replace(/,/g, ''));
    if (!Number.isInteger(n) || n === 0) {
      setFieldError('Enter a whole number: positive to add, negative to remove');
      return;
    }
    setFieldError(null);
    setBusy(true);
    setError(null);
    try {
      const res = await grantCredits(u.id, { amount: n, note: note.trim() || undefined });
      props.onDone(
        `${n > 0 ? 'Added' : 'Removed'} ${formatNumber(Math.abs(n))} credits ${n > 0 ? 'to' : 'from'} ${u.username}. New balance: ${formatNumber(res.credits)}`,
      );
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormModal title={u ? `Credits of ${u.username}` : 'Credits'} opened={!!u} onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <ErrorAlert error={error} />
          <Text size="sm">
            Current balance: <b>{formatNumber(u?.credits ?? 0)}</b>
          </Text>
          <NumberInput
            label="Amount"
            description="A positive amount adds credits, a negative one removes them"
            allowDecimal={false}
            thousandSeparator=","
            thousandsGroupStyle="lakh"
            value={amount}
            onChange={setAmount}
            error={fieldError}
          />
          <TextInput
            label="Note"
            placeholder="Optional"
            value={note}
            onChange={(e) => setNote(e.currentTarget.value)}
          />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Update Credits
            </Button>
          </Group>
        </Stack>
      </form>
    </FormModal>
  );
}

const REASON_LABEL: Record<LedgerEntry['reason'], string> = {
  grant: 'Granted',
  adjust: 'Adjusted',
  send: 'Sent',
  refund: 'Refund',
  retry: 'Retry',
};

export function LedgerModal(props: { user: ManagedUser | null; onClose: () => void }) {
  const fullScreen = useMediaQuery('(max-width: 48em)');
  const ledger = useLedger(props.user?.id ?? null);
  const entries = ledger.data?.entries ?? [];
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      zIndex={MODAL_Z}
      opened={!!props.user}
      onClose={props.onClose}
      title={props.user ? `Credit ledger of ${props.user.username}` : 'Credit ledger'}
      fullScreen={fullScreen}
      size="xl"
      centered
    >
      {ledger.isLoading ? (
        <Center py="md">
          <Loader size="sm" aria-label="Loading ledger" />
        </Center>
      ) : ledger.isError ? (
        <ErrorAlert error={ledger.error.message} />
      ) : entries.length === 0 ? (
        <Text c="dimmed">No credit changes yet.</Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped aria-label="Credit ledger">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Date</Table.Th>
                <Table.Th>Reason</Table.Th>
                <Table.Th ta="right">Change</Table.Th>
                <Table.Th ta="right">Balance</Table.Th>
                <Table.Th>Note</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>{formatDateTime(e.createdAt)}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={e.delta >= 0 ? 'green' : 'red'}>
                      {REASON_LABEL[e.reason] ?? e.reason}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right" c={e.delta >= 0 ? 'green' : 'red'}>
                    {e.delta > 0 ? '+' : ''}
                    {formatNumber(e.delta)}
                  </Table.Td>
                  <Table.Td ta="right">{formatNumber(e.balanceAfter)}</Table.Td>
                  <Table.Td>{e.note ?? (e.jobId ? `Job ${e.jobId}` : '')}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Modal>
  );
}
