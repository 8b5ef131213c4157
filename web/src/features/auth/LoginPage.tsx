import { Anchor, Button, Group, Loader, PasswordInput, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { AuthCard, AuthForm, UsernameInput } from './AuthCard.tsx';
import { useMeta } from './api/get-meta.ts';
import { defaultDeps, SignInError, signInFlow, TwoFactorNeeded } from './sign-in.ts';

export default function LoginPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  // Shown once the server answers that two-factor sign-in is on for this account.
  const [askCode, setAskCode] = useState(false);
  const [otp, setOtp] = useState('');
  const [fieldErrors, setFieldErrors] = useState<{ username?: string; password?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The sign-up link only when the server takes sign-ups (SIGNUP_ENABLED, off by default).
  const signupOpen = useMeta().data?.signupEnabled === true;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const errors = {
      username: username.trim() ? undefined : 'Username is required',
      password: password ? undefined : 'Password is required',
    };
    setFieldErrors(errors);
    if (errors.username || errors.password) return;
    setError(null);
    setStatus(null);
    setBusy(true);
    // Nothing cached for a previous user (signed out by a 401) may show for this one.
    queryClient.clear();
    try {
      await signInFlow(
        username.trim(),
        password,
        defaultDeps(setStatus, (path) => navigate(path, { replace: true })),
        askCode ? otp.trim() : undefined,
      );
    } catch (err) {
      if (err instanceof TwoFactorNeeded) {
        // The first answer only asks for the code; a wrong code is an error to show.
        setError(askCode ? err.message : null);
        setAskCode(true);
        setOtp('');
      } else {
        setError(err instanceof SignInError ? err.message : 'Something went wrong. Please try again.');
      }
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Welcome Back" subtitle="Sign in to your messaging console">
      <AuthForm onSubmit={submit} error={error}>
        <UsernameInput
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          error={fieldErrors.username}
          disabled={busy}
        />
        <PasswordInput
          label="Password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={fieldErrors.password}
          disabled={busy}
          visible={showPassword}
          onVisibilityChange={setShowPassword}
          visibilityToggleFocusable
          visibilityToggleButtonProps={{ 'aria-label': showPassword ? 'Hide password' : 'Show password' }}
        />
        {askCode && (
          <TextInput
            label="Authentication code"
            description="Enter the 6-digit code from your authenticator app (or a recovery code)"
            inputMode="numeric"
            autoComplete="one-time-code"
            autoFocus
            value={otp}
            onChange={(e) => setOtp(e.currentTarget.value)}
            disabled={busy}
          />
        )}
        <Button type="submit" fullWidth loading={false} disabled={busy}>
          {busy ? 'Logging in...' : 'Login'}
        </Button>
        {status && (
          <Group gap="xs" wrap="nowrap" role="status" aria-live="polite">
            <Loader size="xs" />
            <Text size="sm">{status}</Text>
          </Group>
        )}
        <Group justify={signupOpen ? 'space-between' : 'flex-end'} gap="xs">
          {signupOpen && (
            <Anchor component={Link} to="/register" size="sm">
              Don't have an account? Sign up
            </Anchor>
          )}
          <Anchor component={Link} to="/forgot-password" size="sm">
            Forgot password?
          </Anchor>
        </Group>
      </AuthForm>
    </AuthCard>
  );
}
