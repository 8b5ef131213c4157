import { Alert, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { CreateCloudAccountBody } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ApiError } from '../../lib/api.ts';
import { useCreateCloudAccount } from './api/create-cloud-account.ts';

type Fields = {
  sessionName: string;
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
};
const EMPTY: Fields = {
  sessionName: '',
  phoneNumberId: '',
  wabaId: '',
  accessToken: '',
  appSecret: '',
  verifyToken: '',
};

/**
 * 'Connect Cloud API': a number of Meta's WhatsApp Business Platform, by its ids and tokens (Meta
 * App Dashboard → WhatsApp → API Setup). Meta checks them; its error text shows when they are wrong.
 */
export function ConnectCloudModal(props: {
  opened: boolean;
  onClose: () => void;
  onConnected: (accountId: string) => void;
}) {
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<keyof Fields, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const create = useCreateCloudAccount();
  const set = (k: keyof Fields) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setFields((f) => ({ ...f, [k]: value }));
  };

  const close = () => {
    setFields(EMPTY);
    setErrors({});
    setError(null);
    props.onClose();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = CreateCloudAccountBody.safeParse(fields);
    if (!parsed.success) {
      const found: Partial<Record<keyof Fields, string>> = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path[0] as keyof Fields;
        found[key] ??= issue.message;
      }
      setErrors(found);
      return;
    }
    setErrors({});
    setError(null);
    create.mutate(parsed.data, {
      onSuccess: (res) => {
        setFields(EMPTY);
        props.onConnected(res.sessionId);
      },
      onError: (err) =>
        setError(
          err instanceof ApiError
            ? (err.serverMessage ?? 'Failed to connect the Cloud API number')
            : 'Server error. Please try again later.',
        ),
    });
  };

  return (
    <AppModal opened={props.opened} onClose={close} title="Connect Cloud API">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {error && (
            <Alert color="red" role="alert" title="Meta refused these details">
              {error}
            </Alert>
          )}
          <Text size="sm" c="dimmed">
            From Meta's App Dashboard → WhatsApp → API Setup. Use a system user's access token: a temporary
            one stops working within a day.
          </Text>
          <TextInput
            label="Session Name"
            value={fields.sessionName}
            onChange={set('sessionName')}
            error={errors.sessionName}
            data-autofocus
          />
          <TextInput
            label="Phone number ID"
            inputMode="numeric"
            value={fields.phoneNumberId}
            onChange={set('phoneNumberId')}
            error={errors.phoneNumberId}
          />
          <TextInput
            label="WhatsApp Business Account ID"
            inputMode="numeric"
            value={fields.wabaId}
            onChange={set('wabaId')}
            error={errors.wabaId}
          />
          <PasswordInput
            label="Access token"
            value={fields.accessToken}
            onChange={set('accessToken')}
            error={errors.accessToken}
          />
          <PasswordInput
            label="App secret"
            value={fields.appSecret}
            onChange={set('appSecret')}
            error={errors.appSecret}
          />
          <TextInput
            label="Verify token"
            description="Any text you choose; enter the same in Meta's webhook settings."
            value={fields.verifyToken}
            onChange={set('verifyToken')}
            error={errors.verifyToken}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Connect
            </Button>
          </Group>
        </Stack>
      </form>
    </AppModal>
  );
}
