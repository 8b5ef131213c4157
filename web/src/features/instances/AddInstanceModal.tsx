import { Alert, Button, Group, Stack, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ApiError } from '../../lib/api.ts';
import { useCreateInstance } from './api.ts';

/** 'Add New Instance': phone number and session name; on success the QR flow starts. */
export function AddInstanceModal(props: {
  opened: boolean;
  onClose: () => void;
  onCreated: (sessionId: string, sessionName: string) => void;
}) {
  const [phoneNumber, setPhoneNumber] = useState('');
  const [sessionName, setSessionName] = useState('');
  const [errors, setErrors] = useState<{ phoneNumber?: string; sessionName?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const create = useCreateInstance();

  const close = () => {
    setPhoneNumber('');
    setSessionName('');
    setErrors({});
    setError(null);
    props.onClose();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = {
      phoneNumber: phoneNumber.trim() ? undefined : 'Please enter a phone number',
      sessionName: sessionName.trim() ? undefined : 'Please enter a session name',
    };
    setErrors(found);
    if (found.phoneNumber || found.sessionName) return;
    setError(null);
    const name = sessionName.trim();
    create.mutate(
      { phoneNumber: phoneNumber.trim(), sessionName: name },
      {
        onSuccess: (res) => {
          setPhoneNumber('');
          setSessionName('');
          props.onCreated(res.sessionId, name);
        },
        onError: (err) =>
          setError(
            err instanceof ApiError
              ? (err.serverMessage ??
                  (err.status >= 500 ? 'Server error. Please try again later.' : 'Failed to create instance'))
              : 'Server error. Please try again later.',
          ),
      },
    );
  };

  return (
    <AppModal opened={props.opened} onClose={close} title="Add New Instance">
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput
            label="Phone Number"
            placeholder="Enter phone number with country code (e.g. 919876543210)"
            inputMode="tel"
            value={phoneNumber}
            onChange={(e) => setPhoneNumber(e.currentTarget.value)}
            error={errors.phoneNumber}
            data-autofocus
          />
          <TextInput
            label="Session Name"
            placeholder="e.g. Shop phone"
            value={sessionName}
            onChange={(e) => setSessionName(e.currentTarget.value)}
            error={errors.sessionName}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create Instance
            </Button>
          </Group>
        </Stack>
      </form>
    </AppModal>
  );
}
