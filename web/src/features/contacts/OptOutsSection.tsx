import { Badge, Button, Group, Paper, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useAddOptOuts, useOptOuts, useRemoveOptOut } from './api.ts';

const COLUMNS = [
  { header: 'Phone Number' },
  { header: 'Source' },
  { header: 'Since' },
  { header: 'Actions' },
];
const SOURCE = { reply: 'Replied STOP', manual: 'Added by you' } as const;

/** Numbers people typed or pasted: one a line, or separated by commas or semicolons. */
export const numbersOf = (text: string) =>
  text
    .split(/[\n,;]+/)
    .map((n) => n.trim())
    .filter((n) => n !== '');

/**
 * The opt-out list (DECISIONS.md, Opt-outs): numbers that replied STOP or that the user added;
 * sends leave them out uncharged. Only the user takes a number off it.
 */
export function OptOutsSection() {
  const optOuts = useOptOuts();
  const add = useAddOptOuts();
  const remove = useRemoveOptOut();
  const [text, setText] = useState('');
  const [added, setAdded] = useState<string | null>(null);
  const list = optOuts.data?.optOuts ?? [];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAdded(null);
    const numbers = numbersOf(text);
    if (numbers.length === 0) return;
    add.mutate(numbers, {
      onSuccess: (res) => {
        setAdded(res.message);
        setText('');
      },
    });
  };

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label="Opt-outs">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={3} size="h4">
            Opt-outs
          </Title>
          <Text size="sm" c="dimmed">
            {formatNumber(list.length)} number{list.length === 1 ? '' : 's'}
          </Text>
        </Group>
        <Text size="sm" c="dimmed">
          Numbers here receive no messages: sends leave them out and do not charge for them. A contact who
          replies STOP is added by itself.
        </Text>
        <Stack gap="xs" component="form" onSubmit={submit}>
          <Textarea
            label="Numbers to opt out"
            description="One a line, or separated by commas"
            placeholder="98765 43210"
            autosize
            minRows={2}
            maxRows={6}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
          />
          <Group>
            <Button type="submit" loading={add.isPending} disabled={numbersOf(text).length === 0}>
              Add to opt-outs
            </Button>
          </Group>
        </Stack>
        {added && (
          <Text size="sm" c="green.8" role="status" aria-label="Opt-out result">
            {added}
          </Text>
        )}
        <ErrorAlert error={add.isError ? messageOf(add.error) : null} />
        <ErrorAlert error={remove.isError ? messageOf(remove.error) : null} />
        <ErrorAlert error={optOuts.isError ? messageOf(optOuts.error) : null} />
        <DataTable
          bare
          label="Opt-out list"
          columns={COLUMNS}
          rows={list}
          rowKey={(o) => o.phoneNumber}
          loading={optOuts.isLoading}
          loadingLabel="Loading opt-outs"
          empty="No one has opted out."
          minWidth={520}
          cells={(o) => (
            <>
              <Table.Td>{o.phoneNumber}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={o.source === 'reply' ? 'orange' : 'gray'}>
                  {SOURCE[o.source]}
                </Badge>
              </Table.Td>
              <Table.Td>{formatDateTime(o.createdAt)}</Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="light"
                  color="red"
                  aria-label={`Remove ${o.phoneNumber} from opt-outs`}
                  loading={remove.isPending && remove.variables === o.phoneNumber}
                  onClick={() => remove.mutate(o.phoneNumber)}
                >
                  Remove
                </Button>
              </Table.Td>
            </>
          )}
        />
      </Stack>
    </Paper>
  );
}
