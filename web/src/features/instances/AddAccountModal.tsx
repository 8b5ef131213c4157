import { Button, Group, Stack, TextInput } from '@mantine/core';
import { checkPhone } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ApiError } from '../../lib/api.ts';
import { DEFAULT_COUNTRY_CODE } from '../../lib/csv-contacts.ts';
import { useMeta } from '../auth/api/get-meta.ts';
import { useCreateAccount } from './api/create-account.ts';

/** 'Add New Instance': phone number and account name; on success the QR flow starts. */
export function AddAccountModal(props: {
  opened: boolean;
  onClose: () => void;
  onCreated: (accountId: string, accountName: string) => void;
}) {
  const [phoneNumber, setPhoneNumber] = useState('');
  const [accountName, setAccountName] = useState('');
  /** Optional: the account connects only through it. */
  const [proxy, setProxy] = useState('');
  const [errors, setErrors] = useState<{ phoneNumber?: string; sessionName?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const create = useCreateAccount();
  const meta = useMeta();
  // The phone rule of the server (docs/decisions.md, Phone numbers): '9123456780' is kept as 919123456780.
  const phone = checkPhone(phoneNumber, meta.data?.defaultCountryCode ?? DEFAULT_COUNTRY_CODE);
  const stored = 'number' in phone && phone.number !== phoneNumber.trim() ? phone.number : null;

  const close = () => {
    setPhoneNumber('');
    setAccountName('');
    setErrors({});
    setError(null);
    props.onClose();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = {
      phoneNumber: 'error' in phone ? phone.error : undefined,
      sessionName: accountName.trim() ? undefined : 'Please enter a session name',
    };
    setErrors(found);
    if (!('number' in phone) || found.sessionName) return;
    setError(null);
    const name = accountName.trim();
    create.mutate(
      { phoneNumber: phone.number, sessionName: name, ...(proxy.trim() ? { proxy: proxy.trim() } : {}) },
      {
        onSuccess: (res) => {
          setPhoneNumber('');
          setAccountName('');
          setProxy('');
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
          <ErrorAlert error={error} />
          <TextInput
            label="Phone Number"
            placeholder="With country code, e.g. 919876543210"
            inputMode="tel"
            // The whole hint stays readable at 360 px (a long placeholder was cut off), and says
            // which phone: the one whose WhatsApp will scan the QR next.
            inputWrapperOrder={['label', 'description', 'input', 'error']}
            value={phoneNumber}
            onChange={(e) => setPhoneNumber(e.currentTarget.value)}
            description={
              stored ? (
                <>
                  <span>Saved as {stored}</span>. It must be the number of the phone you are about to link.
                </>
              ) : (
                'The number of the phone you are about to link, with its country code.'
              )
            }
            error={errors.phoneNumber}
            data-autofocus
          />
          <TextInput
            label="Session Name"
            placeholder="e.g. Shop phone"
            value={accountName}
            onChange={(e) => setAccountName(e.currentTarget.value)}
            error={errors.sessionName}
          />
          <TextInput
            label="Proxy (optional)"
            description="socks5://user:password@host:port or http://user:password@host:port: this account then connects only through it"
            placeholder="socks5://user:password@203.0.113.7:1080"
            value={proxy}
            onChange={(e) => setProxy(e.currentTarget.value)}
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
