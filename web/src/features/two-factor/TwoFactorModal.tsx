import { Alert, Button, Code, Group, Image, List, Loader, Stack, Text, TextInput } from '@mantine/core';
import type { TwoFactorSetupResponse } from '@wa/contract';
import { type FormEvent, type ReactNode, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { messageOf } from '../../lib/api.ts';
import { useDisableTwoFactor } from './api/disable-two-factor.ts';
import { useEnableTwoFactor } from './api/enable-two-factor.ts';
import { useTwoFactorStatus } from './api/get-two-factor.ts';
import { useStartSetup } from './api/start-setup.ts';

/**
 * Two-factor sign-in from the avatar menu: turn it on (scan the QR, confirm a code, keep the
 * ten recovery codes shown once) or off (with a code).
 */
export function TwoFactorModal(props: { opened: boolean; onClose: () => void }) {
  const status = useTwoFactorStatus(props.opened);
  const [setup, setSetup] = useState<TwoFactorSetupResponse | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const setupCall = useStartSetup();
  const enableCall = useEnableTwoFactor();
  const disableCall = useDisableTwoFactor();
  const busy = setupCall.isPending || enableCall.isPending || disableCall.isPending;

  const close = () => {
    setSetup(null);
    setCodes(null);
    setCode('');
    setError(null);
    props.onClose();
  };
  const onError = (err: unknown) => setError(messageOf(err));

  const begin = () => {
    setError(null);
    setupCall.mutate(undefined, { onSuccess: setSetup, onError });
  };
  const confirm = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    enableCall.mutate(code.trim(), {
      onSuccess: (res) => {
        setCodes(res.recoveryCodes);
        setSetup(null);
        setCode('');
      },
      onError,
    });
  };
  const turnOff = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    disableCall.mutate(code.trim(), { onSuccess: () => setCode(''), onError });
  };

  const enabled = status.data?.enabled === true;
  let body: ReactNode;
  if (codes) {
    body = (
      <Stack gap="sm">
        <Alert color="teal">Two-factor sign-in is on.</Alert>
        <Text size="sm">
          Keep these recovery codes somewhere safe. Each one signs you in once if you lose your phone. They
          are shown only now.
        </Text>
        <List spacing={2} aria-label="Recovery codes">
          {codes.map((c) => (
            <List.Item key={c}>
              <Code>{c}</Code>
            </List.Item>
          ))}
        </List>
        <Group justify="flex-end">
          <Button onClick={close}>Done</Button>
        </Group>
      </Stack>
    );
  } else if (status.isLoading) {
    body = <Loader size="sm" />;
  } else if (setup) {
    body = (
      <form onSubmit={confirm} noValidate>
        <Stack gap="sm">
          <Text size="sm">
            Scan this QR code with your authenticator app, then enter the 6-digit code it shows.
          </Text>
          <Image src={setup.qr} alt="QR code for your authenticator app" w={200} h={200} mx="auto" />
          <Text size="xs" c="dimmed">
            Cannot scan it? Enter this key in the app: <Code data-testid="totp-secret">{setup.secret}</Code>
          </Text>
          <TextInput
            label="Authentication code"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            disabled={busy}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} disabled={!code.trim()}>
              Turn on
            </Button>
          </Group>
        </Stack>
      </form>
    );
  } else if (enabled) {
    body = (
      <form onSubmit={turnOff} noValidate>
        <Stack gap="sm">
          <Alert color="teal">Two-factor sign-in is on.</Alert>
          <TextInput
            label="Authentication code or recovery code"
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            disabled={busy}
          />
          <Group justify="flex-end">
            <Button type="submit" color="red" loading={busy} disabled={!code.trim()}>
              Turn off
            </Button>
          </Group>
        </Stack>
      </form>
    );
  } else {
    body = (
      <Stack gap="sm">
        {status.data?.required && (
          <Alert color="yellow">Admins must turn on two-factor sign-in before anything else.</Alert>
        )}
        <Text size="sm">
          Two-factor sign-in is off. With it on, signing in also asks for a code from an authenticator app on
          your phone.
        </Text>
        <Group justify="flex-end">
          <Button onClick={begin} loading={busy}>
            Set up
          </Button>
        </Group>
      </Stack>
    );
  }

  return (
    <AppModal opened={props.opened} onClose={close} title="Two-factor sign-in">
      <Stack gap="sm">
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {body}
      </Stack>
    </AppModal>
  );
}
