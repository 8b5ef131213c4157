import { Alert, Button, Center, Image, List, Loader, Stack, Text } from '@mantine/core';
import { IconDeviceMobile, IconQrcode, IconRefresh } from '@tabler/icons-react';
import { formatPairingCode } from '@wa/contract';
import { useEffect, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { useInvalidate } from '../../lib/mutation.ts';
import { accountKeys } from './api/keys.ts';
import { clock, PAIRING_TEXT, type PairingState, usePairingCode } from './usePairingCode.ts';
import { QR_TEXT, useQrFlow } from './useQrFlow.ts';

/** 'Connect WhatsApp': the QR flow of the specification for one account. */
export function QrModal(props: { account: { accountId: string; name: string } | null; onClose: () => void }) {
  const invalidate = useInvalidate();
  // Linking changes the account's status: the list is read again once the modal closes.
  const close = () => {
    void invalidate([accountKeys.all]);
    props.onClose();
  };
  const accountId = props.account?.accountId ?? null;
  // 'code': link by phone number; the QR flow stops meanwhile.
  const [mode, setMode] = useState<'qr' | 'code'>('qr');
  useEffect(() => {
    if (accountId) setMode('qr');
  }, [accountId]);
  const { state, retry, imageFailed } = useQrFlow(mode === 'qr' ? accountId : null, close);
  const pairing = usePairingCode(mode === 'code' ? accountId : null, close);
  const useCode = (
    <Button
      variant="subtle"
      leftSection={<IconDeviceMobile size={16} aria-hidden />}
      onClick={() => setMode('code')}
    >
      Link with phone number instead
    </Button>
  );

  return (
    <AppModal
      opened={!!props.account}
      onClose={close}
      title={`Connect WhatsApp${props.account ? `: ${props.account.name}` : ''}`}
    >
      <Stack align="center" gap="md" py="sm">
        {mode === 'code' ? (
          <PairingCodeView state={pairing.state} onRenew={pairing.renew} onQr={() => setMode('qr')} />
        ) : state.phase === 'connected' ? (
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
            {useCode}
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
              {useCode}
            </Stack>
          </Center>
        )}
      </Stack>
    </AppModal>
  );
}

/** Link by phone number: the code, big, the steps on the phone, its countdown and a new code on request. */
function PairingCodeView(props: { state: PairingState; onRenew: () => void; onQr: () => void }) {
  const { state } = props;
  if (state.phase === 'connected')
    return (
      <Alert color="green" role="status" w="100%">
        {QR_TEXT.connected}
      </Alert>
    );
  return (
    <>
      {state.phase === 'loading' ? (
        <Stack align="center" gap="xs" py="lg">
          <Loader aria-label="Loading pairing code" />
          <Text size="sm" c="dimmed">
            Getting a code from WhatsApp...
          </Text>
        </Stack>
      ) : state.phase === 'error' ? (
        <Alert color="red" role="alert" w="100%">
          {state.error}
        </Alert>
      ) : (
        <>
          <Text size="sm" ta="center">
            Enter this code on your phone:
          </Text>
          <Text
            role="status"
            aria-label="Pairing code"
            ff="monospace"
            fz={40}
            fw={700}
            lts={4}
            c={state.phase === 'expired' ? 'dimmed' : undefined}
            td={state.phase === 'expired' ? 'line-through' : undefined}
          >
            {state.code ? formatPairingCode(state.code) : ''}
          </Text>
          {state.phase === 'expired' ? (
            <Alert color="yellow" role="status" w="100%">
              {PAIRING_TEXT.expired}
            </Alert>
          ) : (
            <Text size="sm" c="dimmed" aria-live="polite">
              Code expires in {clock(state.secondsLeft)}
            </Text>
          )}
        </>
      )}
      <List type="ordered" size="sm" spacing={4} aria-label="Steps on the phone">
        <List.Item>Open WhatsApp on the phone with this number</List.Item>
        <List.Item>Go to Settings → Linked devices → Link a device</List.Item>
        <List.Item>Tap 'Link with phone number instead' and enter the code</List.Item>
      </List>
      <Button
        variant={state.phase === 'expired' || state.phase === 'error' ? 'filled' : 'light'}
        leftSection={<IconRefresh size={16} aria-hidden />}
        onClick={props.onRenew}
        disabled={state.phase === 'loading'}
      >
        Get a new code
      </Button>
      <Button variant="subtle" leftSection={<IconQrcode size={16} aria-hidden />} onClick={props.onQr}>
        Scan a QR code instead
      </Button>
    </>
  );
}
