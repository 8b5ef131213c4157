import { Button, Group, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import type { ManagedUser } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { formatNumber } from '../../lib/format.ts';
import { useGrantCredits } from './api/grant-credits.ts';

/** Add or remove credits of a user, with a note. */
export function CreditsModal(props: {
  user: ManagedUser | null;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const u = props.user;
  const [amount, setAmount] = useState<number | string>('');
  const [note, setNote] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const mutation = useGrantCredits();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!u) return;
    const n = typeof amount === 'number' ? amount : Number(String(amount).replace(/,/g, ''));
    if (!Number.isInteger(n) || n === 0) {
      setFieldError('Enter a whole number: positive to add, negative to remove');
      return;
    }
    setFieldError(null);
    setError(null);
    mutation.mutate(
      { id: u.id, body: { amount: n, note: note.trim() || undefined } },
      {
        onSuccess: (res) =>
          props.onDone(
            `${n > 0 ? 'Added' : 'Removed'} ${formatNumber(Math.abs(n))} credits ${n > 0 ? 'to' : 'from'} ${u.username}. New balance: ${formatNumber(res.credits)}`,
          ),
        onError: (err) => setError(messageOf(err)),
      },
    );
  };

  return (
    <AppModal title={u ? `Credits of ${u.username}` : 'Credits'} opened={!!u} onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <ErrorAlert error={error} />
          <Text size="sm">
            Current balance: <b>{formatNumber(u?.credits ?? 0)}</b>
          </Text>
          <NumberInput
            label="Amount"
            description="A positive amount adds credits, a negative one removes them"
            allowDecimal={false}
            thousandSeparator=","
            thousandsGroupStyle="lakh"
            value={amount}
            onChange={setAmount}
            error={fieldError}
          />
          <TextInput
            label="Note"
            placeholder="Optional"
            value={note}
            onChange={(e) => setNote(e.currentTarget.value)}
          />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              Update Credits
            </Button>
          </Group>
        </Stack>
      </form>
    </AppModal>
  );
}
