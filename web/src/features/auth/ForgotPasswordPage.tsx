import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import type { SuccessMessage } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { ApiError, apiFetch } from '../../lib/api.ts';
import { AuthCard } from './AuthCard.tsx';

/** Records a reset request that the user's admin sees in Manage Users (DECISIONS.md). */
export default function ForgotPasswordPage() {
  const [username, setUsername] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim()) {
      setFieldError('Username is required');
      return;
    }
    setFieldError(null);
    setError(null);
    setBusy(true);
    try {
      const res = await apiFetch<SuccessMessage>('/api/auth/forgot-password', {
        body: { username: username.trim() },
      });
      setDone(res.message);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Something went wrong. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Forgot Password" subtitle="Your administrator will reset it for you">
      {done ? (
        <Alert color="green" role="status">
          {done}
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap="md">
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <TextInput
              label="Username"
              autoComplete="username"
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
              error={fieldError}
            />
            <Button type="submit" fullWidth disabled={busy}>
              {busy ? 'Sending...' : 'Request password reset'}
            </Button>
          </Stack>
        </form>
      )}
      <Text size="sm" ta="center">
        <Anchor component={Link} to="/login">
          Back to login
        </Anchor>
      </Text>
    </AuthCard>
  );
}
