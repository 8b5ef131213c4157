import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { messageOf } from '../../lib/api.ts';
import { AuthCard, UsernameInput } from './AuthCard.tsx';
import { useMeta } from './api/get-meta.ts';
import { useRegister } from './api/register.ts';

type Fields = { name: string; username: string; password: string; confirm: string };

/** The client-side checks mirror the server's RegisterBody (contract/src/auth.ts). */
function validate(f: Fields): Partial<Fields> {
  const e: Partial<Fields> = {};
  if (!f.name.trim()) e.name = 'Name is required';
  const u = f.username.trim();
  if (!u) e.username = 'Username is required';
  else if (u.length < 3) e.username = 'Username must be at least 3 characters';
  else if (!/^[A-Za-z0-9._-]+$/.test(u))
    e.username = 'Username may contain only letters, digits, dots, dashes and underscores';
  if (!f.password) e.password = 'Password is required';
  else if (f.password.length < 8) e.password = 'Password must be at least 8 characters';
  if (f.confirm !== f.password) e.confirm = 'Passwords do not match';
  return e;
}

export default function RegisterPage() {
  const [fields, setFields] = useState<Fields>({ name: '', username: '', password: '', confirm: '' });
  const [errors, setErrors] = useState<Partial<Fields>>({});
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const request = useRegister();
  const busy = request.isPending;
  // Said before the form, not after a filled-in form is refused.
  const signupClosed = useMeta().data?.signupEnabled === false;
  // Read the value now: React clears `currentTarget` before a state updater runs.
  const set = (key: keyof Fields) => (e: { currentTarget: HTMLInputElement }) => {
    const value = e.currentTarget.value;
    setFields((f) => ({ ...f, [key]: value }));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = validate(fields);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setError(null);
    request.mutate(
      { username: fields.username.trim(), password: fields.password, name: fields.name.trim() },
      { onSuccess: (res) => setDone(res.message), onError: (err) => setError(messageOf(err)) },
    );
  };

  return (
    <AuthCard title="Sign Up" subtitle="Create your messaging console account">
      {done ? (
        <Stack gap="md">
          <Alert color="green" role="status">
            {done}
          </Alert>
          <Button component={Link} to="/login" fullWidth>
            Go to login
          </Button>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap="md">
            {signupClosed && (
              <Alert color="yellow" role="status" aria-label="Sign-up closed">
                Sign-up is closed on this server. Ask your admin to create an account for you.
              </Alert>
            )}
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <TextInput label="Name" value={fields.name} onChange={set('name')} error={errors.name} />
            <UsernameInput value={fields.username} onChange={set('username')} error={errors.username} />
            <PasswordInput
              label="Password"
              autoComplete="new-password"
              value={fields.password}
              onChange={set('password')}
              error={errors.password}
              description="At least 8 characters"
            />
            <PasswordInput
              label="Confirm password"
              autoComplete="new-password"
              value={fields.confirm}
              onChange={set('confirm')}
              error={errors.confirm}
            />
            <Button type="submit" fullWidth disabled={busy || signupClosed}>
              {busy ? 'Signing up...' : 'Sign Up'}
            </Button>
            <Text size="sm" ta="center">
              Already have an account?{' '}
              <Anchor component={Link} to="/login">
                Log in
              </Anchor>
            </Text>
          </Stack>
        </form>
      )}
    </AuthCard>
  );
}
