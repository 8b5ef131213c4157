import { Button, Group, NumberInput, PasswordInput, Stack, Switch, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { useCreateUser } from './api/create-user.ts';

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

/** 'Add User': a new user of this admin, with credits and flags. */
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
  const mutation = useCreateUser();

  // After a refused submit, the messages follow the fields as they are corrected (the
  // password's stayed red after a valid one was typed).
  const recheck = (next: Partial<{ name: string; username: string; password: string }>) => {
    if (Object.keys(fieldErrors).length > 0)
      setFieldErrors(checkNewUser({ name, username, password, ...next }));
  };

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

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = checkNewUser({ name, username, password });
    setFieldErrors(found);
    if (Object.keys(found).length > 0) return;
    setError(null);
    mutation.mutate(
      {
        name: name.trim(),
        username: username.trim(),
        password,
        credits: Number(credits) || 0,
        is_bulk_messaging_enabled: bulk,
        is_multisession_supported: multi,
      },
      {
        onSuccess: (res) => {
          reset();
          props.onDone(`User ${res.user.username} created`);
        },
        onError: (err) => setError(messageOf(err)),
      },
    );
  };

  return (
    <AppModal title="Add User" opened={props.opened} onClose={close}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <ErrorAlert error={error} />
          <TextInput
            label="Name"
            value={name}
            onChange={(e) => {
              setName(e.currentTarget.value);
              recheck({ name: e.currentTarget.value });
            }}
            error={fieldErrors.name}
          />
          <TextInput
            label="Username"
            value={username}
            autoComplete="off"
            onChange={(e) => {
              setUsername(e.currentTarget.value);
              recheck({ username: e.currentTarget.value });
            }}
            error={fieldErrors.username}
          />
          <PasswordInput
            label="Password"
            autoComplete="new-password"
            description="At least 8 characters"
            value={password}
            onChange={(e) => {
              setPassword(e.currentTarget.value);
              recheck({ password: e.currentTarget.value });
            }}
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
            <Button type="submit" loading={mutation.isPending}>
              Create User
            </Button>
          </Group>
        </Stack>
      </form>
    </AppModal>
  );
}
