import { Button, Stack, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { useCreateChannel } from './api/channels.ts';

/** 'Create channel': a channel the account owns, with no followers yet. */
export function CreateChannelModal(props: {
  accountId: string;
  opened: boolean;
  onClose: () => void;
  onDone: (m: string) => void;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useCreateChannel(props.accountId);
  const submit = () =>
    create.mutate(
      { name, description: description.trim() || null },
      {
        onSuccess: (r) => {
          setName('');
          setDescription('');
          props.onDone(`${r.message}: ${r.channel.name}`);
        },
      },
    );
  return (
    <AppModal opened={props.opened} onClose={props.onClose} title="Create channel">
      <Stack>
        <ErrorAlert error={create.error ? messageOf(create.error) : null} />
        <TextInput
          label="Channel name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Textarea
          label="Description"
          maxLength={2048}
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
        />
        <Button onClick={submit} loading={create.isPending} disabled={!name.trim()}>
          Create
        </Button>
      </Stack>
    </AppModal>
  );
}
