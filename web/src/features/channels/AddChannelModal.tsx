import { Button, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { useAddChannel } from './api/channels.ts';

/** 'Add channel': one the account owns or administers, by its link (WhatsApp gives no list of them). */
export function AddChannelModal(props: {
  accountId: string;
  opened: boolean;
  onClose: () => void;
  onDone: (m: string) => void;
}) {
  const [invite, setInvite] = useState('');
  const add = useAddChannel(props.accountId);
  const submit = () =>
    add.mutate(
      { invite },
      {
        onSuccess: (r) => {
          setInvite('');
          props.onDone(`${r.message}: ${r.channel.name}`);
        },
      },
    );
  return (
    <AppModal opened={props.opened} onClose={props.onClose} title="Add channel">
      <Stack>
        <ErrorAlert error={add.error ? messageOf(add.error) : null} />
        <TextInput
          label="Channel link"
          placeholder="https://whatsapp.com/channel/…"
          required
          value={invite}
          onChange={(e) => setInvite(e.currentTarget.value)}
        />
        <Button onClick={submit} loading={add.isPending} disabled={!invite.trim()}>
          Add
        </Button>
      </Stack>
    </AppModal>
  );
}
