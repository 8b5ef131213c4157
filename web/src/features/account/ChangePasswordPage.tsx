import { Alert, Button, Card, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { TWO_FACTOR_MESSAGES } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { CodeInput } from '../../components/CodeInput.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { storage } from '../../lib/storage.ts';
import { useChangePassword } from './api/change-password.ts';

/** What the page says once the password changed: the server ended every other sign-in and key. */
export const PASSWORD_CHANGED =
  'Password changed. Every other sign-in and every API key has ended; this browser stays signed in.';
export const PASSWORDS_DIFFER = 'The new passwords do not match';

/** /password (from the avatar menu): the signed-in user changes their own password. */
export default function ChangePasswordPage() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [code, setCode] = useState('');
  // The server asks for the code only when two-factor sign-in is on; the field appears then.
  const [askCode, setAskCode] = useState(false);
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const change = useChangePassword();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    if (next !== again) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    change.mutate(
      { currentPassword: current, newPassword: next, ...(code.trim() ? { code: code.trim() } : {}) },
      {
        onSuccess: (res) => {
          // The old token ended with the others: this browser goes on with the new one.
          storage.setToken(res.token);
          setCurrent('');
          setNext('');
          setAgain('');
          setCode('');
          setAskCode(false);
          setDone(true);
        },
        onError: (err) => {
          if (messageOf(err) === TWO_FACTOR_MESSAGES.codeNeeded) setAskCode(true);
        },
      },
    );
  };

  return (
    <Stack gap="md" maw={480}>
      <Title order={1} size="h2">
        Change password
      </Title>
      <Text>
        Signing in elsewhere (other browsers, phones) and every API key stop working once it is changed.
      </Text>
      <Card withBorder radius="md" component="form" onSubmit={submit} aria-label="Change password">
        <Stack gap="sm">
          <PasswordInput
            label="Current password"
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            autoComplete="current-password"
            required
          />
          <PasswordInput
            label="New password"
            description="At least 8 characters"
            value={next}
            onChange={(e) => setNext(e.currentTarget.value)}
            autoComplete="new-password"
            required
          />
          <PasswordInput
            label="New password again"
            value={again}
            onChange={(e) => {
              setAgain(e.currentTarget.value);
              setMismatch(false);
            }}
            autoComplete="new-password"
            error={mismatch ? PASSWORDS_DIFFER : undefined}
            required
          />
          {askCode && <CodeInput value={code} onValue={setCode} />}
          <Button type="submit" leftSection={<IconLock size={16} aria-hidden />} loading={change.isPending}>
            Change password
          </Button>
        </Stack>
      </Card>
      <ErrorAlert error={change.isError ? messageOf(change.error) : null} />
      {done && (
        <Alert color="green" role="status">
          {PASSWORD_CHANGED}
        </Alert>
      )}
    </Stack>
  );
}
