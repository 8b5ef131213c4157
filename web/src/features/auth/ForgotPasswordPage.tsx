import { Alert, Anchor, Button, Text } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { messageOf } from '../../lib/api.ts';
import { AuthCard, AuthForm, UsernameInput } from './AuthCard.tsx';
import { useForgotPassword } from './api/forgot-password.ts';

/** Records a reset request that the user's admin sees in Manage Users (docs/decisions.md, Sign-up and password resets). */
export default function ForgotPasswordPage() {
  const [username, setUsername] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const request = useForgotPassword();
  const busy = request.isPending;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim()) {
      setFieldError('Username is required');
      return;
    }
    setFieldError(null);
    setError(null);
    request.mutate(
      { username: username.trim() },
      { onSuccess: (res) => setDone(res.message), onError: (err) => setError(messageOf(err)) },
    );
  };

  return (
    <AuthCard title="Forgot Password" subtitle="Your administrator will reset it for you">
      {done ? (
        <Alert color="green" role="status">
          {done}
        </Alert>
      ) : (
        <AuthForm onSubmit={submit} error={error}>
          <UsernameInput
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={fieldError}
          />
          <Button type="submit" fullWidth disabled={busy}>
            {busy ? 'Sending...' : 'Request password reset'}
          </Button>
        </AuthForm>
      )}
      <Text size="sm" ta="center">
        <Anchor component={Link} to="/login">
          Back to login
        </Anchor>
      </Text>
    </AuthCard>
  );
}
